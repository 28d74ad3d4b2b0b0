#!/usr/bin/env bash
# bench/sidebyside.sh [FLAGS]: kubewire's `sync pods` next to client-go's informer on the
# same server, alternating, with medians and ratios against issue 9's goals. See
# README.md; the flags are sidebyside/main.go's (./sidebyside.sh -h lists them):
#
#   ./sidebyside.sh                                   # the full run: 10,000 pods, 100,000 events
#   ./sidebyside.sh -pods 500 -runs 2 -events 5000 -throughput-runs 2   # a quick check
#
# The driver is built, not `go run`, so that the programs it measures are its own
# children and nothing else sits between.
set -euo pipefail
cd "$(dirname "$0")"
# The server the sync phase starts (../.ci/cluster/up.sh): the newest release tested, as
# client-go v0.37.2 is the newest client; KUBE_VERSION=1.32.4 for the oldest.
export KUBE_VERSION=${KUBE_VERSION:-1.37.2}
mkdir -p bin
go build -o bin/sidebyside ./sidebyside
exec ./bin/sidebyside "$@"

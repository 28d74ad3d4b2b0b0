#!/usr/bin/env bash
# bench/run.sh [ROUNDS]: the workqueue comparison that bench/README.md reports.
#
# Builds the benchmark binary once, then runs every benchmark once per round, ROUNDS
# times (default 10): the contenders alternate within a round, so a load that comes
# and goes on the machine hits them alike. Raw results go to bin/workqueue.txt (or
# $OUT); benchstat then sets the queues side by side.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-10}
out=${OUT:-bin/workqueue.txt}
mkdir -p bin "$(dirname "$out")"
go test -c -o bin/workqueue.test ./workqueue
: >"$out"
for i in $(seq "$rounds"); do
	echo "round $i/$rounds, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	./bin/workqueue.test -test.run '^$' -test.bench . -test.benchmem -test.count 1 >>"$out"
done
go run golang.org/x/perf/cmd/benchstat@latest -col /queue "$out"

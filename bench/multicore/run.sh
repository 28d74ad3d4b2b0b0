#!/usr/bin/env bash
# bench/multicore/run.sh — on a many-core machine with no network (see README.md): start etcd and
# kube-apiserver v1.37.2 on loopback from the prebuilt binaries beside this script, load N pods,
# check that both caches dump the same, then alternate ROUNDS rounds of every mode, one devbench
# line per sync: "label peak_mib cpu_s wall_s heap_mib server_cpu_s rc" in $OUT/runs.txt.
set -u
N=${N:-10000}; ROUNDS=${ROUNDS:-7}
S=$(cd "$(dirname "$0")" && pwd); D=/tmp/d; rm -rf $D; mkdir -p $D; cp -r "$S"/* $D/; cd $D
for f in *.xz; do xz -d -T0 "$f"; done; chmod +x etcd kas kubewire clientgo devbench
nproc; free -g | head -2
./etcd --name t --data-dir $D/etcd-data --listen-client-urls http://127.0.0.1:17479 --advertise-client-urls http://127.0.0.1:17479 \
  --listen-peer-urls http://127.0.0.1:17480 --initial-advertise-peer-urls http://127.0.0.1:17480 \
  --initial-cluster t=http://127.0.0.1:17480 --quota-backend-bytes 8589934592 >etcd.log 2>&1 &
ETCD=$!
P=$D/pki
./kas --etcd-servers http://127.0.0.1:17479 --bind-address 127.0.0.1 --secure-port 17543 --advertise-address 127.0.0.1 \
  --tls-cert-file $P/server.crt --tls-private-key-file $P/server.key --client-ca-file $P/ca.crt --token-auth-file $P/tokens.csv \
  --authorization-mode RBAC --service-account-issuer https://kubernetes.default.svc --service-account-key-file $P/sa.pub \
  --service-account-signing-key-file $P/sa.key --service-cluster-ip-range 10.96.0.0/16 --disable-admission-plugins ServiceAccount \
  --endpoint-reconciler-type=none --feature-gates=ShardedListAndWatch=true >kas.log 2>&1 &
KAS=$!
for i in $(seq 1 120); do ./kubewire get ns --kubeconfig kc >/dev/null 2>&1 && break; sleep 1; done
./kubewire get ns --kubeconfig kc || { tail -20 kas.log; exit 1; }
./devbench -post https://127.0.0.1:17543/api/v1/namespaces -token "$(cut -d, -f1 $P/tokens.csv)" -ca $P/ca.crt -body '{"metadata":{"name":"load"}}'
t0=$(date +%s)
./clientgo load -kubeconfig kc -n load -count $N >/dev/null 2>&1 || ./clientgo load -kubeconfig kc -n load -count $N
echo "loaded $N pods in $(( $(date +%s) - t0 )) s"
./kubewire sync pods -n load --kubeconfig kc --dump --trace 2> kw.trace > kw.dump
./clientgo sync -n load -kubeconfig kc -dump > cg.dump 2>/dev/null
echo "dumps: kubewire $(wc -l <kw.dump) client-go $(wc -l <cg.dump) same=$(cmp -s kw.dump cg.dump && echo yes || echo no)"
echo "kubewire's first list: $(grep -m1 -E 'listwatch (SPLIT|LIST|WATCH)' kw.trace)"
B="./devbench -server-pid $KAS"
for r in $(seq 1 $ROUNDS); do
  $B -label kw ./kubewire sync pods -n load --kubeconfig kc                    # LIST on 1.37, split by uid hash
  $B -label cg ./clientgo sync -n load -kubeconfig kc                          # protobuf, streaming list
  KUBE_FEATURE_WatchListClient=false $B -label kw-list ./kubewire sync pods -n load --kubeconfig kc
  KUBE_FEATURE_WatchListClient=false $B -label cg-list ./clientgo sync -n load -kubeconfig kc
  $B -label kw-stream ./kubewire sync pods -n load --kubeconfig kc --watch-list   # kubewire's default before issue 33
  $B -label kw-meta ./kubewire sync pods -n load --kubeconfig kc --metadata-only
  $B -label cg-meta ./clientgo sync -n load -kubeconfig kc -metadata-only
  GOMAXPROCS=2 $B -label kw-p2 ./kubewire sync pods -n load --kubeconfig kc     # two cores: no split
  GOMAXPROCS=2 $B -label cg-p2 ./clientgo sync -n load -kubeconfig kc
done 2>&1 | tee "${OUT:-/tmp}/runs.txt"
# Medians per label (devbench's columns: 2 peak MiB, 3 CPU s, 4 wall s, 5 heap MiB, 6 server CPU s).
median() { awk -v l="$1" -v c="$2" '$1==l {print $c}' "${OUT:-/tmp}/runs.txt" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "medians of $ROUNDS rounds, $N pods, $(nproc) cores: label wall_s cpu_s server_cpu_s peak_mib heap_mib"
for l in $(awk '{print $1}' "${OUT:-/tmp}/runs.txt" | sort -u); do
  echo "$l $(median $l 4) $(median $l 3) $(median $l 6) $(median $l 2) $(median $l 5)"
done | tee "${OUT:-/tmp}/medians.txt"
kill $KAS $ETCD

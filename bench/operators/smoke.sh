#!/usr/bin/env bash
# smoke.sh: a manual end-to-end check of a StaticSite operator on a real API server (not CI).
#
#   KUBECONFIG=/work/clusters/v137/kubeconfig bench/operators/smoke.sh            # the controller-runtime twin
#   KUBECONFIG=/work/clusters/v137/kubeconfig bench/operators/smoke.sh CMD ARGS   # another operator
#
# It installs the controller-runtime twin's CRD (controller-gen's output; left installed) unless
# CMD is given (the kubewire twin installs its own), makes a namespace of its own, runs the operator
# for that namespace (CMD ARGS get "--namespace NS" appended; the default command builds
# controllerruntime/ and also serves metrics and probes, which it checks), drives two StaticSites
# through the behaviour in README.md, and removes the namespace at the end. The server needs no
# kube-controller-manager: the script plays the Deployment controller once by patching
# deployments/status, and empties the namespace itself (no garbage collector or namespace
# controller runs). Every wait has a deadline (WAIT seconds, default 30).
set -euo pipefail

: "${KUBECONFIG:?set KUBECONFIG to the server to test against}"
export KUBECONFIG
here=$(cd "$(dirname "$0")" && pwd)
wait_s=${WAIT:-30}
ns=staticsite-smoke-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
tmp=$(mktemp -d)
checks=0

log() { printf 'smoke: %s\n' "$*"; }
fail() {
	log "FAIL: $*"
	log "operator log (last 30 lines):"
	tail -n 30 "$tmp/operator.log" >&2 || true
	exit 1
}
k() { kubectl -n "$ns" "$@"; }

# expect DESC WANT CMD...: runs CMD until it prints WANT, for at most WAIT seconds.
expect() {
	local desc=$1 want=$2 got=""
	shift 2
	local deadline=$((SECONDS + wait_s))
	while ((SECONDS < deadline)); do
		got=$("$@" 2>/dev/null || true)
		if [[ $got == "$want" ]]; then
			checks=$((checks + 1))
			log "ok   $desc: $want"
			return
		fi
		sleep 0.2
	done
	fail "$desc: want \"$want\", got \"$got\" after ${wait_s}s"
}
field() { k get "$1" -o "jsonpath=$2"; }
ready() { field "staticsite/$1" '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}'; }
registry() { k get configmap static-sites -o "go-template={{index .data \"$ns.$1\"}}"; }
has_key() { k get configmap static-sites -o "go-template={{with .data}}{{if index . \"$ns.$1\"}}yes{{else}}no{{end}}{{else}}no{{end}}"; }
events() { k get events --field-selector "involvedObject.name=$1,reason=$2,type=$3" -o name | wc -l | tr -d ' '; }
some() { local n; n=$("$@"); if ((n > 0)); then echo some; else echo none; fi; }

cleanup() {
	set +e
	[[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	# No namespace controller runs: empty the namespace, then finalize it as that controller would.
	k delete staticsites --all --wait=false >/dev/null 2>&1
	k patch staticsites --type=merge -p '{"metadata":{"finalizers":null}}' \
		$(k get staticsites -o name 2>/dev/null) >/dev/null 2>&1
	k delete deployments,configmaps,secrets,events --all >/dev/null 2>&1
	kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1
	kubectl get namespace "$ns" -o json 2>/dev/null |
		python3 -c 'import json,sys; n=json.load(sys.stdin); n["spec"]["finalizers"]=[]; print(json.dumps(n))' |
		kubectl replace --raw "/api/v1/namespaces/$ns/finalize" -f - >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

log "server $(kubectl get --raw /version | python3 -c 'import json,sys; print(json.load(sys.stdin)["gitVersion"])'), namespace $ns"
if (($# == 0)); then # the kubewire twin installs its CRD itself, built from its Go type
	kubectl apply -f "$here/controllerruntime/config/crd/demo.kubewire.io_staticsites.yaml" >/dev/null
fi
kubectl create namespace "$ns" >/dev/null

probe=""
if (($# == 0)); then
	(cd "$here/controllerruntime" && go build -o "$tmp/staticsite" .)
	free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
	metrics=127.0.0.1:$(free_port) probe=127.0.0.1:$(free_port)
	set -- "$tmp/staticsite" --kubeconfig "$KUBECONFIG" --metrics-bind-address "$metrics" --health-probe-bind-address "$probe"
fi
"$@" --namespace "$ns" >"$tmp/operator.log" 2>&1 &
pid=$!
expect "StaticSites served" yes sh -c "kubectl -n $ns get staticsites >/dev/null && echo yes"
if [[ -n $probe ]]; then
	expect "readyz" ok curl -fsS "http://$probe/readyz"
	expect "metrics name the controller" yes sh -c "curl -fsS http://$metrics/metrics | grep -q 'controller=\"staticsite\"' && echo yes"
fi

log "--- a site without TLS"
k apply -f - >/dev/null <<YAML
apiVersion: demo.kubewire.io/v1
kind: StaticSite
metadata: {name: plain}
spec: {replicas: 2, html: "<h1>plain</h1>"}
YAML
expect "finalizer" demo.kubewire.io/registry field staticsite/plain '{.metadata.finalizers[*]}'
expect "registry key" "http://plain.$ns.svc" registry plain
expect "content ConfigMap" "<h1>plain</h1>" field configmap/plain-content '{.data.index\.html}'
expect "ConfigMap controller" StaticSite/plain/true field configmap/plain-content '{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller}'
expect "Deployment image and replicas" nginx:1.27/2 field deployment/plain '{.spec.template.spec.containers[0].image}/{.spec.replicas}'
expect "Deployment selector" plain field deployment/plain '{.spec.selector.matchLabels.app\.kubernetes\.io/name}'
expect "Deployment mount" plain-content:/usr/share/nginx/html field deployment/plain '{.spec.template.spec.volumes[0].configMap.name}:{.spec.template.spec.containers[0].volumeMounts[0].mountPath}'
expect "Deployment field manager" staticsite-controller/Apply field deployment/plain '{.metadata.managedFields[?(@.operation=="Apply")].manager}/{.metadata.managedFields[?(@.manager=="staticsite-controller")].operation}'
expect "no TLS annotation" "" field deployment/plain '{.spec.template.metadata.annotations}'
expect "Ready" False/Progressing ready plain
expect "observedGeneration (status, condition)" 1/1 field staticsite/plain '{.status.observedGeneration}/{.status.conditions[0].observedGeneration}'

log "--- the Deployment becomes available (played by hand: no Deployment controller here)"
k patch deployment plain --subresource=status --type=merge \
	-p '{"status":{"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2}}' >/dev/null
expect "Ready" True/Available ready plain
expect "availableReplicas" 2 field staticsite/plain '{.status.availableReplicas}'
expect "Normal Ready event" some some events plain Ready Normal
since=$(field staticsite/plain '{.status.conditions[0].lastTransitionTime}')

log "--- a spec change passes the GenerationChanged predicate"
k patch staticsite plain --type=merge -p '{"spec":{"replicas":3,"html":"<h1>v2</h1>"}}' >/dev/null
expect "observedGeneration" 2 field staticsite/plain '{.status.observedGeneration}'
expect "Deployment replicas" 3 field deployment/plain '{.spec.replicas}'
expect "content ConfigMap" "<h1>v2</h1>" field configmap/plain-content '{.data.index\.html}'
expect "Ready" False/Progressing ready plain
if [[ $(field staticsite/plain '{.status.conditions[0].lastTransitionTime}') < "$since" ]]; then
	fail "lastTransitionTime moved backwards"
fi

log "--- a site whose TLS Secret is missing, then created, then changed"
k apply -f - >/dev/null <<YAML
apiVersion: demo.kubewire.io/v1
kind: StaticSite
metadata: {name: secure}
spec: {replicas: 1, html: "<h1>secure</h1>", image: "nginx:1.27-alpine", tlsSecretName: secure-tls}
YAML
expect "Ready" False/SecretMissing ready secure
expect "message names the Secret" yes sh -c "kubectl -n $ns get staticsite secure -o jsonpath='{.status.conditions[0].message}' | grep -q secure-tls && echo yes"
expect "Warning SecretMissing event" some some events secure SecretMissing Warning
expect "no Deployment yet" 0 sh -c "kubectl -n $ns get deployment secure -o name 2>/dev/null | wc -l | tr -d ' '"
k create secret generic secure-tls --from-literal=tls.crt=one >/dev/null
rv=$(field secret/secure-tls '{.metadata.resourceVersion}')
expect "TLS annotation = Secret's resourceVersion" "$rv" field deployment/secure '{.spec.template.metadata.annotations.demo\.kubewire\.io/tls-version}'
expect "image" nginx:1.27-alpine field deployment/secure '{.spec.template.spec.containers[0].image}'
expect "Ready" False/Progressing ready secure
k create secret generic secure-tls --from-literal=tls.crt=two --dry-run=client -o yaml | k apply -f - >/dev/null 2>&1
rv=$(field secret/secure-tls '{.metadata.resourceVersion}')
expect "TLS annotation follows the Secret" "$rv" field deployment/secure '{.spec.template.metadata.annotations.demo\.kubewire\.io/tls-version}'
expect "both keys in the registry" yes/yes sh -c "echo \$(kubectl -n $ns get cm static-sites -o go-template='{{if index .data \"$ns.plain\"}}yes{{end}}/{{if index .data \"$ns.secure\"}}yes{{end}}')"

log "--- deletion runs the finalizer"
k delete staticsite plain --wait=false >/dev/null
expect "plain gone" 0 sh -c "kubectl -n $ns get staticsite plain -o name 2>/dev/null | wc -l | tr -d ' '"
expect "plain's registry key gone" no has_key plain
expect "secure's registry key kept" yes has_key secure
k delete staticsite secure --wait=false >/dev/null
expect "secure gone" 0 sh -c "kubectl -n $ns get staticsite secure -o name 2>/dev/null | wc -l | tr -d ' '"
expect "secure's registry key gone" no has_key secure
log "all $checks checks passed; the operator logged $(grep -c 'Reconciler error' "$tmp/operator.log" || true) reconcile errors:"
sed -n 's/.*Reconciler error.*"error": "\(.*\)"}$/\1/p' "$tmp/operator.log" | sed 's/\\"/"/g' | sort | uniq -c

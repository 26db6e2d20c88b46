#!/usr/bin/env bash
# node.sh: a real single-node Kubernetes for kbf's tests, assembled from packages with no
# image pulled.
#
#   k8s/node.sh build    the binaries into the cache (reused when present)
#   k8s/node.sh up       build if needed, then start etcd, the control plane, a containerd
#                        of its own, the kubelet; import the pause and Kafka images
#   k8s/node.sh down     stop all it started and remove all it wrote outside the cache
#   k8s/node.sh status   what runs, and the node as the API sees it
#   k8s/node.sh built    exit 0 when the binaries are in the cache, 1 when build has work to do
#
# Kubernetes 1.28 is the newest line Debian's containerd 1.6 serves (CRI v1). The control plane
# and the kubelet are built from the Go module k8s.io/kubernetes; etcd comes from Debian's
# etcd-server package, unpacked, so that no service is installed. The node's containerd is its
# own (socket, root, state): Docker's containerd, config, socket and networks are never touched.
#
# Environment:
#   KBF_K8S_CACHE   the binaries and their build module (default ~/.cache/kbf-k8s)
#   KBF_K8S_DIR     the running node's state: certificates, kubeconfigs, logs, pids, the
#                   containerd's root (default /var/lib/kbf-k8s); the tests read
#                   $KBF_K8S_DIR/admin.kubeconfig
#   KBF_K8S_IMAGES  the Docker images imported into the node (default: kbf/kafka:4.3.1)
#   KBF_K8S_BUILD_JOBS  packages compiled at once by build (default 1: other work shares the
#                   machine; CI, building while nothing timed runs, gives 2)
set -euo pipefail

K8S_VERSION=v1.28.15
STAGING_VERSION=v0.28.15
ETCD_DEB_VERSION=3.4.23
CACHE=${KBF_K8S_CACHE:-$HOME/.cache/kbf-k8s}
DIR=${KBF_K8S_DIR:-/var/lib/kbf-k8s}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IMAGES=${KBF_K8S_IMAGES:-kbf/kafka:4.3.1}
BIN=$CACHE/$K8S_VERSION/bin
COMPONENTS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)

# The modules that k8s.io/kubernetes takes from its staging directory: its go.mod requires them
# at v0.0.0 and replaces them with local paths, which a consumer of the module must replace with
# the published versions.
STAGING=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
  cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
  csi-translation-lib dynamic-resource-allocation endpointslice kms kube-aggregator
  kube-controller-manager kube-proxy kube-scheduler kubectl kubelet legacy-cloud-providers metrics
  mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller)

log() { printf '%s node.sh: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'node.sh: %s\n' "$*" >&2; exit 1; }

built() {
  local c
  for c in "${COMPONENTS[@]}" etcd; do [ -x "$BIN/$c" ] || return 1; done
}

# build: the components from the module, and etcd from Debian's package. Niced, one package
# compiled at a time unless KBF_K8S_BUILD_JOBS says more: other work shares the machine, and a
# compile takes up to 2 GB.
build() {
  if built; then log "binaries cached in $BIN"; return; fi
  command -v go >/dev/null || die "go is not on PATH: install Go to build Kubernetes"
  mkdir -p "$BIN" "$CACHE/$K8S_VERSION/mod"
  local mod=$CACHE/$K8S_VERSION/mod s pkgs=() c
  {
    echo "module kbf-k8s-build"
    echo
    echo "go 1.20"
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    for s in "${STAGING[@]}"; do echo "replace k8s.io/$s => k8s.io/$s $STAGING_VERSION"; done
  } > "$mod/go.mod"
  for c in "${COMPONENTS[@]}"; do
    [ -x "$BIN/$c" ] || pkgs+=("k8s.io/kubernetes/cmd/$c")
  done
  if [ ${#pkgs[@]} -gt 0 ]; then
    log "building ${pkgs[*]##*/} from k8s.io/kubernetes@$K8S_VERSION (10 to 30 minutes on 2 shared cores)"
    # providerless leaves out the in-tree cloud providers (the AWS, Azure, GCE and vSphere
    # SDKs: a third of the Go source these five binaries would compile), which a node
    # without a cloud never calls.
    (cd "$mod" && CGO_ENABLED=0 GOFLAGS="-p=${KBF_K8S_BUILD_JOBS:-1} -mod=mod -buildvcs=false" nice -n 19 \
      go build -tags providerless -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION" \
      -o "$BIN/" "${pkgs[@]}")
  fi
  if [ ! -x "$BIN/etcd" ]; then
    log "unpacking etcd $ETCD_DEB_VERSION from Debian's etcd-server package"
    local tmp; tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download -q "etcd-server=$ETCD_DEB_VERSION*" >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null && apt-get download -q "etcd-server=$ETCD_DEB_VERSION*"; })
    dpkg -x "$tmp"/etcd-server_*.deb "$tmp/x"
    cp "$tmp/x/usr/bin/etcd" "$BIN/etcd"
    rm -rf "$tmp"
  fi
  built || die "the build left no binaries in $BIN"
}

# --- the running node ------------------------------------------------------------------------

NODE_NAME=kbf-k8s-node
BRIDGE=kbf-k8s0
POD_SUBNET=10.244.77.0/24
SERVICE_RANGE=10.96.0.0/16
APISERVER_PORT=6443
ETCD_PORT=12379
ETCD_PEER_PORT=12380
CNI_ADMIN_CHAIN=KBF-K8S-ADMIN
SOCK=$DIR/containerd/containerd.sock
PAUSE_IMAGE=kbf.local/pause:1
# What the kubelet writes outside its state directory, removed by down. up refuses to start when
# one of them is there already and is not this node's: down would remove another's files.
KUBELET_ROOT=/var/lib/kubelet
OUTSIDE=("$KUBELET_ROOT" /var/log/pods /var/log/containers /var/lib/cni)
MARKER=$DIR/owner

# node_ip: the host's own address, on the interface of the default route. The kubelet refuses
# a loopback node IP, and the API server reaches the kubelet (logs, exec) at this address.
node_ip() {
  local dev
  dev=$(ip -4 -o route show default 2>/dev/null | awk '{for(i=1;i<NF;i++) if ($i=="dev") {print $(i+1); exit}}')
  if [ -n "$dev" ]; then
    ip -4 -o addr show dev "$dev" scope global | awk '{split($4,a,"/"); print a[1]; exit}'
  else
    ip -4 -o addr show scope global | awk '{split($4,a,"/"); print a[1]; exit}'
  fi
}

kubectl_() { "$BIN/kubectl" --kubeconfig "$DIR/admin.kubeconfig" "$@"; }

# start NAME CMD...: a process of the node, in its own session so that a terminal's signals
# do not reach it, with its pid and log in $DIR.
start() {
  local name=$1; shift
  setsid "$@" >"$DIR/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$DIR/pids/$name"
}

# running PID: the process exists and is not a zombie. The node's processes outlive the shell
# that started them, and a PID 1 that is slow to reap would otherwise keep them "alive".
running() { [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

alive() { [ -f "$DIR/pids/$1" ] && running "$(cat "$DIR/pids/$1")"; }

# wait_for WHAT SECONDS CMD...: CMD until it succeeds; on a timeout, the failure and the log
# tails that say why.
wait_for() {
  local what=$1 secs=$2 i; shift 2
  for ((i = 0; i < secs * 4; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  log "timed out after ${secs}s waiting for $what; the logs in $DIR/logs end:"
  tail -n 5 "$DIR"/logs/*.log >&2 || true
  return 1
}

# certs: a CA and one certificate per component, made with openssl. The admin is in
# system:masters; the components are named as the default RBAC roles expect.
certs() {
  local ip=$1 d=$DIR/pki
  mkdir -p "$d"
  openssl ecparam -name prime256v1 -genkey -noout -out "$d/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$d/ca.key" -subj "/CN=kbf-k8s-ca" -days 30 -out "$d/ca.crt" 2>/dev/null
  openssl ecparam -name prime256v1 -genkey -noout -out "$d/sa.key" 2>/dev/null
  openssl ec -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  cert apiserver "/CN=kube-apiserver" serverAuth \
    "IP:127.0.0.1,IP:$ip,IP:${SERVICE_RANGE%.0/*}.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert apiserver-kubelet-client "/CN=kube-apiserver-kubelet-client" clientAuth
  cert admin "/O=system:masters/CN=kbf-admin" clientAuth
  cert controller-manager "/CN=system:kube-controller-manager" clientAuth
  cert scheduler "/CN=system:kube-scheduler" clientAuth
  cert kubelet-client "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
  cert kubelet "/CN=$NODE_NAME" serverAuth "IP:$ip,DNS:$NODE_NAME"
  kubeconfig admin; kubeconfig controller-manager; kubeconfig scheduler; kubeconfig kubelet-client
  mv "$DIR/kubelet-client.kubeconfig" "$DIR/kubelet.kubeconfig"
}

# cert NAME SUBJECT USAGE [SANS]
cert() {
  local d=$DIR/pki ext
  ext="basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=$3"
  [ -z "${4:-}" ] || ext+="
subjectAltName=$4"
  openssl ecparam -name prime256v1 -genkey -noout -out "$d/$1.key" 2>/dev/null
  openssl req -new -key "$d/$1.key" -subj "$2" 2>/dev/null |
    openssl x509 -req -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 30 \
      -extfile <(echo "$ext") -out "$d/$1.crt" 2>/dev/null
}

kubeconfig() {
  cat > "$DIR/$1.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: kbf-k8s
  cluster:
    certificate-authority: $DIR/pki/ca.crt
    server: https://127.0.0.1:$APISERVER_PORT
users:
- name: $1
  user:
    client-certificate: $DIR/pki/$1.crt
    client-key: $DIR/pki/$1.key
contexts:
- name: kbf-k8s
  context: {cluster: kbf-k8s, user: $1}
current-context: kbf-k8s
KC
}

# containerd_config: a containerd of the node's own. Every path it writes is under $DIR (its
# opt plugin would otherwise share /opt/containerd with Docker's containerd).
containerd_config() {
  mkdir -p "$DIR/containerd" "$DIR/cni"
  cat > "$DIR/containerd/config.toml" <<TOML
version = 2
root = "$DIR/containerd/root"
state = "$DIR/containerd/state"
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$DIR/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  stream_server_address = "127.0.0.1"
  # These machines lack CAP_SYS_RESOURCE: without it every sandbox fails with "can't get
  # final child's PID from pipe: EOF" (runc cannot lower oom_score_adj).
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$DIR/cni"
TOML
  # The pods' network: a bridge of the node's own, no default route and no masquerade, so a
  # pod reaches only the other pods and the host. The firewall plugin accepts the pods'
  # traffic in FORWARD: Docker sets its policy to DROP, and bridged traffic passes iptables.
  cat > "$DIR/cni/10-kbf-k8s.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "kbf-k8s",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_SUBNET"}]]}},
    {"type": "firewall", "backend": "iptables", "iptablesAdminChainName": "$CNI_ADMIN_CHAIN"}
  ]
}
JSON
}

kubelet_config() {
  cat > "$DIR/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $1
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $DIR/pki/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $DIR/pki/kubelet.crt
tlsPrivateKeyFile: $DIR/pki/kubelet.key
containerRuntimeEndpoint: unix://$SOCK
cgroupDriver: cgroupfs
failSwapOn: false
clusterDomain: cluster.local
# Leave the host's iptables to Docker: no KUBE-FIREWALL, no canary chains.
makeIPTablesUtilChains: false
# A shared disk: no eviction for it, and never collect the imported images (none can be pulled).
evictionHard: {memory.available: 100Mi, nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
YAML
}

# pause_image: the sandbox image, one static binary, as a docker-archive tar made here.
pause_image() {
  local out=$1 tmp bin cfg layer_sha cfg_sha
  tmp=$(mktemp -d)
  bin=$CACHE/$K8S_VERSION/pause
  if [ ! -x "$bin" ]; then
    (cd "$HERE/pause" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" .)
  fi
  mkdir -p "$tmp/rootfs" "$tmp/img/layer"
  cp "$bin" "$tmp/rootfs/pause"
  tar -C "$tmp/rootfs" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$tmp/img/layer/layer.tar" pause
  layer_sha=$(sha256sum "$tmp/img/layer/layer.tar" | cut -d' ' -f1)
  cfg='{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"]},"rootfs":{"type":"layers","diff_ids":["sha256:'$layer_sha'"]}}'
  cfg_sha=$(printf '%s' "$cfg" | sha256sum | cut -d' ' -f1)
  printf '%s' "$cfg" > "$tmp/img/$cfg_sha.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["layer/layer.tar"]}]' "$cfg_sha" "$PAUSE_IMAGE" > "$tmp/img/manifest.json"
  tar -C "$tmp/img" -cf "$out" .
  rm -rf "$tmp"
}

import_images() {
  local ctr=(ctr --address "$SOCK" --namespace k8s.io) img
  pause_image "$DIR/pause.tar"
  "${ctr[@]}" images import "$DIR/pause.tar" >/dev/null
  rm -f "$DIR/pause.tar"
  for img in $IMAGES; do
    docker save "$img" | "${ctr[@]}" images import - >/dev/null
  done
}

check_images() {
  local img
  command -v docker >/dev/null || die "docker is not on PATH: the node imports its images from Docker"
  for img in $IMAGES; do
    docker image inspect "$img" >/dev/null 2>&1 ||
      die "image $img is not in Docker: build it first (make image), or set KBF_K8S_IMAGES"
  done
}

install_packages() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/firewall ] || missing+=(containernetworking-plugins)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v iptables >/dev/null || missing+=(iptables)
  [ ${#missing[@]} -eq 0 ] && return
  log "installing ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
}

up() {
  [ "$(id -u)" = 0 ] || die "the node needs root (containerd, the kubelet, iptables)"
  if [ -f "$MARKER" ]; then
    if alive kubelet && alive kube-apiserver; then log "the node is up already"; return; fi
    die "a node's state is in $DIR but it is not running: run $0 down first"
  fi
  local p
  for p in "${OUTSIDE[@]}"; do
    [ ! -e "$p" ] || die "$p exists and is not this node's: remove it, or stop the kubelet that owns it"
  done
  ! ip link show "$BRIDGE" >/dev/null 2>&1 || die "the bridge $BRIDGE exists already: run $0 down first"
  check_images
  install_packages
  build
  trap 'log "up failed: $0 down stops and removes what it started"' ERR
  local ip t0=$SECONDS
  ip=$(node_ip)
  [ -n "$ip" ] || die "found no non-loopback IPv4 address for the node (the kubelet refuses loopback)"
  mkdir -p "$DIR/logs" "$DIR/pids"
  echo "$$ $(date -u +%FT%TZ)" > "$MARKER"
  ls /run/netns 2>/dev/null > "$DIR/netns.before" || true
  certs "$ip"
  containerd_config
  kubelet_config "$ip"

  start containerd containerd --config "$DIR/containerd/config.toml"
  start etcd "$BIN/etcd" --name kbf-k8s --data-dir "$DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "kbf-k8s=http://127.0.0.1:$ETCD_PEER_PORT"
  start kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$APISERVER_PORT" --advertise-address "$ip" \
    --client-ca-file "$DIR/pki/ca.crt" \
    --tls-cert-file "$DIR/pki/apiserver.crt" --tls-private-key-file "$DIR/pki/apiserver.key" \
    --kubelet-client-certificate "$DIR/pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$DIR/pki/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$DIR/pki/ca.crt" --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$DIR/pki/sa.pub" --service-account-signing-key-file "$DIR/pki/sa.key" \
    --service-cluster-ip-range "$SERVICE_RANGE" \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
    --allow-privileged=true --profiling=false
  wait_for containerd 30 ctr --address "$SOCK" version
  import_images
  wait_for "the API server" 60 kubectl_ get --raw /readyz
  start kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
    --service-account-private-key-file "$DIR/pki/sa.key" --root-ca-file "$DIR/pki/ca.crt" \
    --cluster-signing-cert-file "$DIR/pki/ca.crt" --cluster-signing-key-file "$DIR/pki/ca.key" \
    --profiling=false
  start kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig "$DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig "$DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig "$DIR/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --profiling=false
  # The API server's calls to the kubelet (logs, exec) under the default role for them.
  kubectl_ create clusterrolebinding kbf-apiserver-kubelet --clusterrole system:kubelet-api-admin \
    --user kube-apiserver-kubelet-client >/dev/null
  start kubelet "$BIN/kubelet" --config "$DIR/kubelet.yaml" --kubeconfig "$DIR/kubelet.kubeconfig" \
    --hostname-override "$NODE_NAME" --node-ip "$ip" --root-dir "$KUBELET_ROOT" \
    --pod-infra-container-image "$PAUSE_IMAGE"
  wait_for "the node to be Ready" 120 node_ready
  wait_for "the default service account" 60 kubectl_ get serviceaccount default
  log "node $NODE_NAME Ready at $ip in $((SECONDS - t0))s; kubeconfig $DIR/admin.kubeconfig"
}

node_ready() {
  [ "$(kubectl_ get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]
}

# stop NAME: SIGTERM, then SIGKILL after 4 s.
stop() {
  alive "$1" || { rm -f "$DIR/pids/$1"; return 0; }
  local pid i; pid=$(cat "$DIR/pids/$1")
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do running "$pid" || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$DIR/pids/$1"
}

down() {
  [ "$(id -u)" = 0 ] || die "the node needs root to stop"
  local t0=$SECONDS ctr=(ctr --address "$SOCK" --namespace k8s.io) c p i
  if [ ! -f "$MARKER" ]; then log "no node in $DIR: nothing to do"; return; fi
  # The kubelet first, so that it restarts nothing, then every container SIGKILLed: asking the
  # kubelet to delete the pods waits out their grace periods (30 s for a pod that ignores
  # SIGTERM). What CRI would have torn down per sandbox (veth, address, firewall rules, network
  # namespace) goes below with the bridge, the chains and the directories.
  for c in kubelet kube-scheduler kube-controller-manager kube-apiserver etcd; do stop "$c"; done
  if alive containerd; then
    for c in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true; done
    for ((i = 0; i < 40; i++)); do
      [ -z "$("${ctr[@]}" tasks ls 2>/dev/null | awk 'NR > 1 && $3 == "RUNNING"')" ] && break
      sleep 0.25
    done
    for c in $("${ctr[@]}" containers ls -q 2>/dev/null); do
      "${ctr[@]}" tasks delete -f "$c" >/dev/null 2>&1 || true
      "${ctr[@]}" containers delete "$c" >/dev/null 2>&1 || true
    done
  fi
  stop containerd
  # Network namespaces that CRI made and did not remove.
  for p in $(ls /run/netns 2>/dev/null | grep '^cni-' || true); do
    grep -qx "$p" "$DIR/netns.before" 2>/dev/null && continue
    umount "/run/netns/$p" 2>/dev/null || true
    rm -f "/run/netns/$p"
  done
  # Mounts under the node's directories (projected volumes, overlay rootfs, shm), deepest first.
  # The kubelet bind-mounts its root onto itself, so the roots count too.
  awk -v a="$KUBELET_ROOT" -v b="$DIR" '$2 == a || $2 == b || index($2, a "/") == 1 || index($2, b "/") == 1 {print $2}' /proc/mounts |
    sort -r | while read -r p; do umount -l "$p" 2>/dev/null || true; done
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE"; fi
  # The firewall plugin's chains: the jump from FORWARD, its own chain and the admin chain.
  while iptables -D FORWARD -m comment --comment "CNI firewall plugin rules" -j CNI-FORWARD 2>/dev/null; do :; done
  for c in CNI-FORWARD "$CNI_ADMIN_CHAIN"; do
    iptables -F "$c" 2>/dev/null && iptables -X "$c" 2>/dev/null || true
  done
  # The QoS cgroups the kubelet made (cgroupfs driver), deepest first.
  for p in /sys/fs/cgroup/*/kubepods; do
    [ -d "$p" ] && find "$p" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  rm -rf "${OUTSIDE[@]}"
  rm -rf "$DIR"
  log "down in $((SECONDS - t0))s"
}

status() {
  local c rc=0
  for c in containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet; do
    if alive "$c"; then echo "$c: running (pid $(cat "$DIR/pids/$c"))"; else echo "$c: not running"; rc=1; fi
  done
  [ $rc = 0 ] && kubectl_ get nodes -o wide && kubectl_ get pods --all-namespaces -o wide
  return $rc
}

main() {
  case "${1:-}" in
    build) build ;;
    up) up ;;
    down) down ;;
    status) status ;;
    built) built ;;
    *) echo "usage: $0 build|up|down|status|built" >&2; exit 2 ;;
  esac
}

# On one line with exit: bash reads a script as it runs it, so an edit made meanwhile (a git
# checkout, say) cannot change what runs after main returns.
main "$@"; exit

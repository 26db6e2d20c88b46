#!/usr/bin/env bash
# node.sh: a real single-node Kubernetes for kbf's tests, assembled from packages with no
# image pulled.
#
#   testnode/node.sh build    the binaries into the cache (reused when present)
#   testnode/node.sh up       build if needed, then start etcd, the control plane, a containerd
#                        of its own, CoreDNS, the kubelet; make the default StorageClass and
#                        its local volumes; import the pause and Kafka images (and kbf's)
#   testnode/node.sh down     stop all it started and remove all it wrote outside the cache
#   testnode/node.sh status   what runs, and the node as the API sees it
#   testnode/node.sh built    exit 0 when the binaries are in the cache, 1 when build has work to do
#   testnode/node.sh reclaim  (run by up, a process of the node) empty and offer again each volume
#                        whose claim was deleted
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
#   KBF_K8S_OPTIONAL_IMAGES  imported too when Docker has them (default: kbf/kbf:latest)
#   KBF_K8S_VOLUMES the node's local volumes, its default StorageClass's (default 8)
#   KBF_K8S_BUILD_JOBS  packages compiled at once by build (default 1: other work shares the
#                   machine; CI, building while nothing timed runs, gives 2)
set -euo pipefail

K8S_VERSION=v1.28.15
STAGING_VERSION=v0.28.15
ETCD_DEB_VERSION=3.4.23
COREDNS_VERSION=v1.15.0
CACHE=${KBF_K8S_CACHE:-$HOME/.cache/kbf-k8s}
DIR=${KBF_K8S_DIR:-/var/lib/kbf-k8s}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IMAGES=${KBF_K8S_IMAGES:-kbf/kafka:4.3.1}
# Imported when Docker has them: kbf's own image (make kbf-image), for the Job and the Deployment.
OPTIONAL_IMAGES=${KBF_K8S_OPTIONAL_IMAGES:-kbf/kbf:latest}
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
  for c in "${COMPONENTS[@]}" etcd coredns; do [ -x "$BIN/$c" ] || return 1; done
}

# coredns_build: the cluster's DNS, CoreDNS from its Go module with only the plugins the node's
# Corefile uses (as CoreDNS's own README shows for an external plugin set: a main of its own
# that sets the directives and imports the plugins). The full set would compile the clouds'
# SDKs for their DNS services too.
coredns_build() {
  local mod=$CACHE/coredns-$COREDNS_VERSION p
  local plugins=(bind errors ready kubernetes)
  mkdir -p "$mod"
  {
    echo "module kbf-coredns-build"
    echo
    echo "go 1.26"
    echo
    echo "require github.com/coredns/coredns $COREDNS_VERSION"
  } > "$mod/go.mod"
  {
    echo "// The node's CoreDNS: the plugins its Corefile names, in CoreDNS's order."
    echo "package main"
    echo
    echo "import ("
    echo '	"github.com/coredns/coredns/core/dnsserver"'
    echo '	"github.com/coredns/coredns/coremain"'
    for p in "${plugins[@]}"; do echo "	_ \"github.com/coredns/coredns/plugin/$p\""; done
    echo ")"
    echo
    echo "func init() {"
    echo "	dnsserver.Directives = []string{$(printf '"%s", ' "${plugins[@]}" | sed 's/, $//')}"
    echo "}"
    echo
    echo "func main() { coremain.Run() }"
  } > "$mod/main.go"
  log "building coredns $COREDNS_VERSION (plugins ${plugins[*]})"
  (cd "$mod" && CGO_ENABLED=0 GOFLAGS="-p=${KBF_K8S_BUILD_JOBS:-1} -mod=mod -buildvcs=false" nice -n 19 \
    go build -trimpath -ldflags "-s -w" -o "$BIN/coredns" .)
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
  [ -x "$BIN/coredns" ] || coredns_build
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
# The bridge's own address, the pods' gateway: the cluster's DNS listens there.
DNS_IP=10.244.77.1
DNS_READY_PORT=18181
STORAGE_CLASS=kbf-local
VOLUMES=${KBF_K8S_VOLUMES:-8}
SERVICE_RANGE=10.96.0.0/16
APISERVER_PORT=6443
# The kubernetes Service's address, which a pod's in-cluster configuration dials: with no
# kube-proxy, a DNAT rule of the node's own chain sends it to the API server on the bridge.
SERVICE_IP=${SERVICE_RANGE%.0/*}.1
NAT_CHAIN=KBF-K8S-SERVICES
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
    "IP:127.0.0.1,IP:$ip,IP:$DNS_IP,IP:$SERVICE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert apiserver-kubelet-client "/CN=kube-apiserver-kubelet-client" clientAuth
  cert admin "/O=system:masters/CN=kbf-admin" clientAuth
  cert controller-manager "/CN=system:kube-controller-manager" clientAuth
  cert scheduler "/CN=system:kube-scheduler" clientAuth
  cert kubelet-client "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
  cert kubelet "/CN=$NODE_NAME" serverAuth "IP:$ip,DNS:$NODE_NAME"
  cert coredns "/CN=system:kbf-coredns" clientAuth
  kubeconfig admin; kubeconfig controller-manager; kubeconfig scheduler; kubeconfig kubelet-client
  kubeconfig coredns
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
    server: https://$DNS_IP:$APISERVER_PORT
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
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_SUBNET"}]], "routes": [{"dst": "$SERVICE_RANGE"}]}},
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
clusterDNS: [$DNS_IP]
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
  local out=$1 tmp bin
  tmp=$(mktemp -d)
  bin=$CACHE/$K8S_VERSION/pause
  if [ ! -x "$bin" ]; then
    (cd "$HERE/pause" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" .)
  fi
  cp "$bin" "$tmp/pause"
  "$HERE/../deploy/pack-image.sh" "$tmp" "$PAUSE_IMAGE" '{"Entrypoint":["/pause"]}' "$out"
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
  for img in $OPTIONAL_IMAGES; do
    docker image inspect "$img" >/dev/null 2>&1 || continue
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

# bridge: the pods' bridge with its gateway address, made before any pod so that the cluster's
# DNS can listen on it from the start (the CNI bridge plugin takes it as it finds it).
bridge() {
  ip link add "$BRIDGE" type bridge
  ip addr add "$DNS_IP/${POD_SUBNET#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  # The pods route the service range to the bridge (CNI's routes), where this sends the
  # kubernetes Service's address to the API server: kbf in a pod finds the API as on any cluster.
  iptables -t nat -N "$NAT_CHAIN"
  iptables -t nat -A "$NAT_CHAIN" -d "$SERVICE_IP/32" -p tcp --dport 443 -j DNAT --to-destination "$DNS_IP:$APISERVER_PORT"
  iptables -t nat -I PREROUTING -s "$POD_SUBNET" -j "$NAT_CHAIN"
}

# dns: CoreDNS on the bridge's address, answering cluster.local (Services, headless Services'
# pods by name) and the reverse zones from the API, as the system:kbf-coredns user that may
# only read what it serves. Other names are refused: the pods have no route out.
dns() {
  kubectl_ create clusterrole kbf-coredns --verb list,watch \
    --resource endpoints,services,pods,namespaces,endpointslices.discovery.k8s.io >/dev/null
  kubectl_ create clusterrolebinding kbf-coredns --clusterrole kbf-coredns --user system:kbf-coredns >/dev/null
  cat > "$DIR/Corefile" <<COREFILE
cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {
    bind $DNS_IP
    errors
    ready 127.0.0.1:$DNS_READY_PORT
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $DIR/coredns.kubeconfig kbf-k8s
        pods insecure
        ttl 5
    }
}
COREFILE
  start coredns "$BIN/coredns" -conf "$DIR/Corefile"
}

# storage: the default StorageClass, with no provisioner, and VOLUMES local volumes of the node,
# directories under $DIR/volumes (mode 0777, as local-path provisioners make them: a pod may
# run as any user). A claim binds when its pod is scheduled (WaitForFirstConsumer); a volume
# whose claim is deleted is emptied and offered again by reclaim.
storage() {
  local i y
  y="apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: $STORAGE_CLASS
  annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Retain"
  for ((i = 1; i <= VOLUMES; i++)); do
    mkdir -p "$DIR/volumes/pv-$i"
    chmod 0777 "$DIR/volumes/pv-$i"
    y+="
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: $STORAGE_CLASS-$i
  labels: {kbf.local/volume: \"true\"}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: $STORAGE_CLASS
  local: {path: $DIR/volumes/pv-$i}
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.io/hostname, operator: In, values: [$NODE_NAME]}"
  done
  kubectl_ apply -f - <<<"$y" >/dev/null
  start reclaim "$0" reclaim
}

# reclaim: what a local volume provisioner's cleaner does, for the node's volumes: each one
# Released (its claim deleted, so no pod uses it) is emptied and made Available again. Runs as a
# process of the node, following the volumes with a watch.
reclaim() {
  local name phase path
  while true; do
    kubectl_ get pv -l kbf.local/volume --watch \
      -o jsonpath='{.metadata.name} {.status.phase} {.spec.local.path}{"\n"}' 2>/dev/null |
      while read -r name phase path; do
        [ "$phase" = Released ] || continue
        case $path in "$DIR/volumes/"*) ;; *) continue ;; esac
        # The watch may repeat a volume's Released: only the one Released now is emptied.
        [ "$(kubectl_ get pv "$name" -o jsonpath='{.status.phase}' 2>/dev/null)" = Released ] || continue
        find "$path" -mindepth 1 -delete || continue
        kubectl_ patch pv "$name" --type json -p '[{"op":"remove","path":"/spec/claimRef"}]' >/dev/null 2>&1 &&
          echo "$(date -u +%FT%TZ) $name emptied and Available again"
      done
    sleep 1
  done
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
  bridge
  containerd_config
  kubelet_config "$ip"

  start containerd containerd --config "$DIR/containerd/config.toml"
  start etcd "$BIN/etcd" --name kbf-k8s --data-dir "$DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "kbf-k8s=http://127.0.0.1:$ETCD_PEER_PORT"
  start kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address "$DNS_IP" --secure-port "$APISERVER_PORT" --advertise-address "$DNS_IP" \
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
  dns
  storage
  start kubelet "$BIN/kubelet" --config "$DIR/kubelet.yaml" --kubeconfig "$DIR/kubelet.kubeconfig" \
    --hostname-override "$NODE_NAME" --node-ip "$ip" --root-dir "$KUBELET_ROOT" \
    --pod-infra-container-image "$PAUSE_IMAGE"
  wait_for "the node to be Ready" 120 node_ready
  wait_for "the default service account" 60 kubectl_ get serviceaccount default
  wait_for "the cluster's DNS" 60 curl -sf "http://127.0.0.1:$DNS_READY_PORT/ready"
  log "node $NODE_NAME Ready at $ip in $((SECONDS - t0))s; kubeconfig $DIR/admin.kubeconfig"
}

node_ready() {
  [ "$(kubectl_ get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]
}

# stop NAME [GROUP]: SIGTERM, then SIGKILL after 4 s; to the process's group when GROUP is given
# (reclaim, a shell whose watch is a child of its own).
stop() {
  alive "$1" || { rm -f "$DIR/pids/$1"; return 0; }
  local pid i to; pid=$(cat "$DIR/pids/$1"); to=$pid
  [ -z "${2:-}" ] || to=-$pid
  kill -- "$to" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do running "$pid" || break; sleep 0.1; done
  kill -9 -- "$to" 2>/dev/null || true
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
  stop reclaim group
  for c in kubelet coredns kube-scheduler kube-controller-manager kube-apiserver etcd; do stop "$c"; done
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
  while iptables -t nat -D PREROUTING -s "$POD_SUBNET" -j "$NAT_CHAIN" 2>/dev/null; do :; done
  iptables -t nat -F "$NAT_CHAIN" 2>/dev/null && iptables -t nat -X "$NAT_CHAIN" 2>/dev/null || true
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
  for c in containerd etcd kube-apiserver kube-controller-manager kube-scheduler coredns reclaim kubelet; do
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
    reclaim) reclaim ;;
    *) echo "usage: $0 build|up|down|status|built" >&2; exit 2 ;;
  esac
}

# On one line with exit: bash reads a script as it runs it, so an edit made meanwhile (a git
# checkout, say) cannot change what runs after main returns.
main "$@"; exit

#!/usr/bin/env bash
# kbf-image.sh [OUT]: an image of kbf itself, made offline (no registry, no builder): the static
# kbf binary (CGO_ENABLED=0) in an image of one layer with nothing else but /tmp, a /results
# directory anyone may write, and a passwd naming the user it runs as (65532, not root). Written
# as a docker-archive tar (default bin/kbf-image.tar), loaded into Docker when Docker runs
# (node.sh imports it from there at up), and into the test node's containerd when the node is up.
#
#   KBF_OWN_IMAGE  the image's name (default kbf/kbf:latest; the manifests say imagePullPolicy: Never)
#   VERSION      kbf's version, as make build stamps it
#   KBF_K8S_DIR  the test node's state (default /var/lib/kbf-k8s)
#   KBF_BIN      a kbf binary built as below to pack instead of building one (the Kubernetes
#                tests build one for the host and the image: one compile, not two)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=${1:-$ROOT/bin/kbf-image.tar}
IMAGE=${KBF_OWN_IMAGE:-kbf/kbf:latest}
VERSION=${VERSION:-dev}
DIR=${KBF_K8S_DIR:-/var/lib/kbf-k8s}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/rootfs/etc" "$tmp/rootfs/tmp" "$tmp/rootfs/results" "$(dirname "$OUT")"
if [ -n "${KBF_BIN:-}" ]; then
  cp "$KBF_BIN" "$tmp/rootfs/kbf"
else
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$VERSION" -o "$tmp/rootfs/kbf" ./cmd/kbf)
fi
chmod 1777 "$tmp/rootfs/tmp" "$tmp/rootfs/results"
printf 'root:x:0:0:root:/root:/sbin/nologin\nkbf:x:65532:65532:kbf:/results:/sbin/nologin\n' > "$tmp/rootfs/etc/passwd"
printf 'root:x:0:\nkbf:x:65532:\n' > "$tmp/rootfs/etc/group"
"$HERE/pack-image.sh" "$tmp/rootfs" "$IMAGE" \
  '{"Entrypoint":["/kbf"],"User":"65532:65532","WorkingDir":"/results","Env":["HOME=/results","TMPDIR=/tmp"]}' "$OUT"
echo "kbf-image: $IMAGE in $OUT ($(du -h "$OUT" | cut -f1))"
if docker info >/dev/null 2>&1; then
  docker load -i "$OUT" >/dev/null && echo "kbf-image: loaded into Docker"
fi
if [ -S "$DIR/containerd/containerd.sock" ]; then
  ctr --address "$DIR/containerd/containerd.sock" --namespace k8s.io images import "$OUT" >/dev/null &&
    echo "kbf-image: imported into the test node's containerd"
fi

#!/usr/bin/env bash
# pack-image.sh ROOTFS TAG CONFIG OUT: the directory ROOTFS as an image of one layer, tagged TAG,
# in a docker-archive tar at OUT (what docker load and ctr images import read), with CONFIG as
# the image's config object (e.g. {"Entrypoint":["/pause"]}). Made here with tar and sha256sum:
# no registry, no builder. Files are owned by root unless ROOTFS says otherwise, dated at the
# epoch, so the same ROOTFS gives the same image.
set -euo pipefail
[ $# = 4 ] || { echo "usage: $0 ROOTFS TAG CONFIG OUT" >&2; exit 2; }
rootfs=$1 tag=$2 config=$3 out=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/layer"
# The entries under ROOTFS, not ROOTFS itself: its own mode would become that of the image's /.
(cd "$rootfs" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort) |
  tar -C "$rootfs" --owner=0 --group=0 --numeric-owner --mtime=@0 --no-recursion -T - -cf "$tmp/layer/layer.tar"
layer_sha=$(sha256sum "$tmp/layer/layer.tar" | cut -d' ' -f1)
cfg='{"architecture":"amd64","os":"linux","config":'$config',"rootfs":{"type":"layers","diff_ids":["sha256:'$layer_sha'"]}}'
cfg_sha=$(printf '%s' "$cfg" | sha256sum | cut -d' ' -f1)
printf '%s' "$cfg" > "$tmp/$cfg_sha.json"
printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["layer/layer.tar"]}]' "$cfg_sha" "$tag" > "$tmp/manifest.json"
tar -C "$tmp" -cf "$out" "$cfg_sha.json" manifest.json layer

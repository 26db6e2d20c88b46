#!/usr/bin/env bash
# Builds the image kbf/kafka:VERSION, Kafka 4.3.1 unless KAFKA_VERSION says another 4.x (run by
# `make image [KAFKA_VERSION=4.0.2]` from the repository root, and by kbf up and kbf run when
# the official image cannot be pulled) without pulling any image from a registry. Missing debootstrap and Maven are installed with apt-get on Debian as root;
# elsewhere it stops with the command to run.
#
#   1. base image kbf/debian-jre:bookworm-iptables: a Debian bookworm minbase root filesystem
#      with openjdk-17-jre-headless and iptables (for kbf's network cuts on Kubernetes, made from
#      an ephemeral container in the broker's image), made by debootstrap (needs root and the
#      Debian archive) and loaded with `docker import`. Skipped when the image exists; `docker
#      rmi` it to rebuild.
#   2. the Kafka jars of image/pom.xml at KAFKA_VERSION, copied by Maven into
#      .cache/image/libs-VERSION. Skipped when they were copied from the same pom.xml and version.
#   3. `docker build` of image/Dockerfile on top of the base image (the classic builder, which
#      every engine has; layers are cached, so an unchanged rebuild takes seconds).
#
# It prints one line per step with its time; what the steps print goes to a log
# (.cache/image/build.log, or KBF_IMAGE_LOG), whose end is shown when a step fails.
#
# Environment: KAFKA_VERSION (default 4.3.1; any 4.x release on Maven Central), KBF_IMAGE_TAG
# (default kbf/kafka:KAFKA_VERSION), KBF_BASE_IMAGE (default
# kbf/debian-jre:bookworm-iptables), KBF_CACHE_DIR (default .cache/image in the repository).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${KBF_CACHE_DIR:-$repo/.cache/image}
version=${KAFKA_VERSION:-4.3.1}
# As a scenario's kafka_version: is checked (bench/scenario.go), and 4.x only; the version goes
# into a tag, a path and Maven's command line, so nothing else may pass.
if ! [[ $version =~ ^4\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$ ]]; then
  printf 'build.sh: KAFKA_VERSION=%q: want a Kafka 4.x release such as 4.0.2 (the image runs KRaft with log4j2, which 3.x does not)\n' "$version" >&2
  exit 2
fi
image=${KBF_IMAGE_TAG:-kbf/kafka:$version}
base=${KBF_BASE_IMAGE:-kbf/debian-jre:bookworm-iptables}
suite=bookworm

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
started=$(now)
timings=()

# step NAME COMMAND...: runs COMMAND with its output in the build's log, and prints one line:
# the step and how long it took. A step that fails prints the end of the log and where it is.
step() {
  local name=$1 t0 t1 rc=0
  shift
  printf '==> %-44s' "$name"
  t0=$(now)
  echo "==> $name" >>"$log"
  # A subshell, so that a step's exit or error ends the step, not the script, and its own
  # cleanup (trap) runs; errexit is set inside it, where a `||` would have turned it off.
  set +e
  (
    set -e
    trap cleanup EXIT
    "$@"
  ) >>"$log" 2>&1
  rc=$?
  set -e
  t1=$(now)
  if [ "$rc" -ne 0 ]; then
    printf ' failed after %.1f s\n' "$(elapsed "$t0" "$t1")"
    echo "build.sh: $name failed (exit $rc); the end of its log:" >&2
    tail -n 25 "$log" | sed 's/^/    /' >&2
    echo "build.sh: the whole log: $log" >&2
    exit "$rc"
  fi
  printf ' %6.1f s\n' "$(elapsed "$t0" "$t1")"
  timings+=("$(printf '%-40s %7.1f s' "$name" "$(elapsed "$t0" "$t1")")")
}

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "build.sh: $1 is required" >&2; exit 1; }
}

# ensure COMMAND PACKAGE: when COMMAND is missing, installs PACKAGE with apt-get on Debian as
# root (a fresh machine needs no step by hand), else stops with the exact command to run.
ensure() {
  local cmd=$1 pkg=$2
  command -v "$cmd" >/dev/null 2>&1 && return 0
  if [ -r /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
      echo "==> $cmd is missing: apt-get install -y $pkg"
      if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null; then
        command -v "$cmd" >/dev/null 2>&1 && return 0
      fi
      echo "build.sh: installing $pkg failed; run apt-get install -y $pkg and make image again" >&2
      exit 1
    fi
    echo "build.sh: $cmd is required: sudo apt-get install -y $pkg (or run make image as root, which installs it)" >&2
    exit 1
  fi
  echo "build.sh: $cmd is required: install your system's $pkg package, then make image again" >&2
  exit 1
}

need docker
ensure mvn maven
docker info >/dev/null 2>&1 || { echo "build.sh: the Docker engine does not answer (docker info)" >&2; exit 1; }
mkdir -p "$cache"
# Everything the steps print (debootstrap, Maven, docker build) goes to this log, anew each build.
log=${KBF_IMAGE_LOG:-$cache/build.log}
: >"$log"

# --- 1. base image ---------------------------------------------------------------------------
rootfs=""
cleanup() {
  if [ -n "$rootfs" ] && [ -d "$rootfs" ]; then
    rm -rf --one-file-system "$rootfs"
  fi
}
trap cleanup EXIT

build_base() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "build.sh: building $base runs debootstrap, which needs root: sudo make image" >&2
    exit 1
  fi
  ensure debootstrap debootstrap
  rootfs=$(mktemp -d "$cache/rootfs.XXXXXX")
  # No mirror argument: debootstrap's default Debian archive.
  debootstrap --variant=minbase --include=openjdk-17-jre-headless,iptables "$suite" "$rootfs"
  # Downloaded packages, package lists and the build host's resolver and name are not part
  # of the image (docker provides resolv.conf, hostname and hosts at run time).
  rm -f "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/tmp/* "$rootfs"/var/tmp/*
  : >"$rootfs/etc/resolv.conf"
  echo localhost >"$rootfs/etc/hostname"
  tar --numeric-owner -C "$rootfs" -c . |
    docker import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' - "$base"
  rm -rf --one-file-system "$rootfs"
  rootfs=""
}

if docker image inspect "$base" >/dev/null 2>&1; then
  timings+=("$(printf '%-40s %9s' "base image $base" "cached")")
  printf '==> %-44s cached\n' "base image $base"
else
  step "base image $base" build_base
fi

# --- 2. jars ---------------------------------------------------------------------------------
libs="$cache/libs-$version"
pom_sum="$(sha256sum "$here/pom.xml" | cut -d' ' -f1) $version"

copy_jars() {
  rm -rf "$libs.tmp"
  if ! mvn -B -q -f "$here/pom.xml" dependency:copy-dependencies -Dkafka.version="$version" \
    -DincludeScope=runtime -DoutputDirectory="$libs.tmp"; then
    echo "build.sh: Maven could not fetch Kafka $version's jars: is $version a Kafka release on Maven Central (org.apache.kafka:kafka_2.13)?" >&2
    exit 1
  fi
  rm -rf "$libs"
  mv "$libs.tmp" "$libs"
  echo "$pom_sum" >"$libs.pom.sha256"
  echo "    $(find "$libs" -name '*.jar' | wc -l) jars, $(du -sh "$libs" | cut -f1)"
}

if [ -d "$libs" ] && [ "$(cat "$libs.pom.sha256" 2>/dev/null)" = "$pom_sum" ]; then
  timings+=("$(printf '%-40s %9s' "jars (pom.xml, Kafka $version)" "cached")")
  printf '==> %-44s cached\n' "jars (pom.xml, Kafka $version)"
else
  step "jars (pom.xml, Kafka $version)" copy_jars
fi

# --- 3. image --------------------------------------------------------------------------------
context="$cache/context"

build_image() {
  rm -rf "$context"
  mkdir -p "$context"
  cp "$here/Dockerfile" "$here/log4j2.yaml" "$here/tools-log4j2.yaml" "$here/server.properties" \
    "$here/entrypoint.sh" "$here/cds-train.sh" "$context/"
  chmod 0755 "$context/entrypoint.sh" "$context/cds-train.sh"
  chmod 0644 "$context/Dockerfile" "$context"/*.yaml "$context/server.properties"
  # Hard links: the context costs no copy of the jars.
  cp -al "$libs" "$context/libs"
  # The classic builder: the engine may be older than BuildKit-by-default clients expect.
  DOCKER_BUILDKIT=0 docker build --build-arg "BASE_IMAGE=$base" --build-arg "KAFKA_VERSION=$version" \
    --tag "$image" "$context"
}

step "image $image" build_image

total=$(elapsed "$started" "$(now)")
size=$(docker image inspect --format '{{.Size}}' "$image" | awk '{ printf "%.0f MB", $1 / 1e6 }')
printf '==> %-44s %6.1f s (%s; log: %s)\n' "$image built" "$total" "$size" "$log"

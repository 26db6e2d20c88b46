#!/usr/bin/env bash
# Makes the image's class-data sharing archives while it is built, as the apache/kafka image
# makes its own (docker/jvm/jsa_launch there): each of the two JVMs a container starts runs once
# with -XX:ArchiveClassesAtExit, and entrypoint.sh starts them with -XX:SharedArchiveFile, so the
# classes they load on start are mapped from the archive instead of being parsed and verified
# again on every start.
#
#   /opt/kafka/storage.jsa  kafka.docker.KafkaDockerWrapper setup (configuration and storage)
#   /opt/kafka/kafka.jsa    kafka.Kafka, from its start to the end of a controlled shutdown
#
# The runs use the image's own defaults (/etc/kafka/docker/server.properties: one node, broker
# and controller) in a scratch directory, and the options entrypoint.sh gives, classpath first:
# a JVM maps an archive only when its classpath is the one the archive was made with (on any
# mismatch it says so and starts without it).
set -euo pipefail

home=/opt/kafka
work=$(mktemp -d)
trap 'rm -rf "$work" /tmp/kraft-combined-logs' EXIT
mkdir -p "$work/mounted" "$work/config" "$work/logs"
classpath="$home/libs/*"
jmx="-Dcom.sun.management.jmxremote=true -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false"
export CLUSTER_ID=5L6g3nShT-eMCtK--X86sw

# shellcheck disable=SC2086 # the options are words
java -Xmx256M -XX:ArchiveClassesAtExit="$home/storage.jsa" $jmx -Dkafka.logs.dir="$work/logs" \
  -Dlog4j2.configurationFile="$home/config/tools-log4j2.yaml" -cp "$classpath" \
  kafka.docker.KafkaDockerWrapper setup --default-configs-dir /etc/kafka/docker \
  --mounted-configs-dir "$work/mounted" --final-configs-dir "$work/config"

# shellcheck disable=SC2086
java -Xmx1G -Xms1G -XX:ArchiveClassesAtExit="$home/kafka.jsa" \
  -Xlog:gc*:file="$work/logs/kafkaServer-gc.log":time,tags:filecount=10,filesize=100M $jmx \
  -Dkafka.logs.dir="$work/logs" -Dlog4j2.configurationFile="$work/config/log4j2.yaml" \
  -cp "$classpath" kafka.Kafka "$work/config/server.properties" >"$work/out" 2>&1 &
server=$!
for _ in $(seq 1 180); do
  grep -q 'Kafka Server started' "$work/out" && break
  kill -0 "$server" 2>/dev/null || break
  sleep 1
done
if ! grep -q 'Kafka Server started' "$work/out"; then
  echo "cds-train.sh: the server did not start:" >&2
  tail -30 "$work/out" >&2
  exit 1
fi
# A controlled shutdown, as docker stop asks for: its classes are archived too.
kill -TERM "$server"
wait "$server" || true
for f in storage.jsa kafka.jsa; do
  [ -s "$home/$f" ] || { echo "cds-train.sh: no $home/$f was written:" >&2; tail -30 "$work/out" >&2; exit 1; }
done
ls -l "$home/storage.jsa" "$home/kafka.jsa"

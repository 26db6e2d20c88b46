#!/usr/bin/env bash
# Entrypoint of the kbf/kafka image. It does what the apache/kafka 4.x image does on start
# (/etc/kafka/docker/run -> configureDefaults -> configure -> launch, then
# bin/kafka-server-start.sh -> bin/kafka-run-class.sh), so that the same environment gives the
# same server, but without the distribution's bin/ scripts: it ends in one `exec java`, so the
# broker or controller JVM is PID 1 and gets docker's SIGTERM (controlled shutdown) or SIGKILL.
#
# The configuration is rendered, and the storage formatted, by the same code the official image
# runs, kafka.docker.KafkaDockerWrapper from kafka_2.13-4.3.1.jar:
#   - every variable KAFKA_X_Y becomes x.y ("__" -> "_", "___" -> "-"), except these, which are
#     not configuration: KAFKA_VERSION KAFKA_HEAP_OPTS KAFKA_LOG4J_OPTS KAFKA_OPTS KAFKA_JMX_OPTS
#     KAFKA_JVM_PERFORMANCE_OPTS KAFKA_GC_LOG_OPTS KAFKA_LOG4J_ROOT_LOGLEVEL KAFKA_LOG4J_LOGGERS
#     KAFKA_TOOLS_LOG4J_LOGLEVEL KAFKA_JMX_HOSTNAME. (KAFKA_JMX_PORT is not excluded upstream
#     either: it also lands in server.properties as jmx.port, which Kafka ignores.)
#   - /mnt/shared/config/server.properties, if mounted, comes first and the environment is
#     appended; otherwise the environment alone makes server.properties, and only when it
#     yields nothing is /etc/kafka/docker/server.properties used.
#   - log4j2.yaml: /etc/kafka/docker/log4j2.yaml (or the mounted one), with
#     KAFKA_LOG4J_ROOT_LOGLEVEL and KAFKA_LOG4J_LOGGERS ("logger=LEVEL,...") applied, is written
#     to /opt/kafka/config/log4j2.yaml.
#   - the log dirs are formatted with CLUSTER_ID; a dir that already holds meta.properties is
#     refused with "already formatted", which is expected on a restart and leaves the data as
#     it is.
# Arguments NAME=VALUE override the environment, as with the official `run`; any other
# arguments are run as a command instead of Kafka (e.g. `docker run --rm -it IMAGE bash`).
set -o nounset -o errexit
if [ "${TRACE:-}" == "true" ]; then
  set -o verbose -o xtrace
fi

if [ $# -gt 0 ] && [[ $1 != *=* ]]; then
  exec "$@"
fi

# Names used here stay clear of the KAFKA_ prefix: every exported KAFKA_* variable that is not
# in the list above would end up in server.properties.
home=/opt/kafka
docker_dir=/etc/kafka/docker

# --- run -------------------------------------------------------------------------------------
if [ $# -ne 0 ]; then
  echo "===> Overriding env params with args ..."
  for var in "$@"; do
    export "${var?}"
  done
fi

echo "===> User"
id

# --- configureDefaults -----------------------------------------------------------------------
echo "===> Setting default values of environment variables if not already set."
if [[ -z "${CLUSTER_ID:-}" ]]; then
  echo "CLUSTER_ID not set. Setting it to default value: \"5L6g3nShT-eMCtK--X86sw\""
  export CLUSTER_ID=5L6g3nShT-eMCtK--X86sw
fi

# --- configure -------------------------------------------------------------------------------
echo "===> Configuring ..."

ensure() {
  if [[ -z "${!1:-}" ]]; then
    echo "$1 environment variable not set"
    exit 1
  fi
}

path() {
  if [[ $2 == "writable" ]]; then
    if [[ ! -w "$1" ]]; then
      echo "$1 file not writable"
      exit 1
    fi
  elif [[ $2 == "existence" ]]; then
    if [[ ! -e "$1" ]]; then
      echo "$1 file does not exist"
      exit 1
    fi
  fi
}

if [[ -n "${KAFKA_PROCESS_ROLES-}" ]]; then
  echo "Running in KRaft mode..."
  ensure CLUSTER_ID
  if [[ $KAFKA_PROCESS_ROLES == "controller" ]]; then
    if [[ -n "${KAFKA_ADVERTISED_LISTENERS-}" ]]; then
      echo "KAFKA_ADVERTISED_LISTENERS is not supported on a KRaft controller."
      exit 1
    else
      unset KAFKA_ADVERTISED_LISTENERS
    fi
  fi
fi

# Listeners default to the advertised listeners with every host replaced by 0.0.0.0.
if [[ -z "${KAFKA_LISTENERS-}" ]] \
  && { [[ -z "${KAFKA_PROCESS_ROLES-}" ]] || [[ $KAFKA_PROCESS_ROLES != "controller" ]]; } \
  && [[ -n "${KAFKA_ADVERTISED_LISTENERS-}" ]]; then
  export KAFKA_LISTENERS
  # shellcheck disable=SC2001 # a regular expression, not a pattern
  KAFKA_LISTENERS=$(echo "$KAFKA_ADVERTISED_LISTENERS" | sed -e 's|://[^:]*:|://0.0.0.0:|g')
fi

path "$home/config/" writable

if [[ -n "${KAFKA_ADVERTISED_LISTENERS-}" ]] && [[ $KAFKA_ADVERTISED_LISTENERS == *"SSL://"* ]]; then
  echo "SSL is enabled."
  ensure KAFKA_SSL_KEYSTORE_FILENAME
  export KAFKA_SSL_KEYSTORE_LOCATION="/etc/kafka/secrets/$KAFKA_SSL_KEYSTORE_FILENAME"
  path "$KAFKA_SSL_KEYSTORE_LOCATION" existence

  ensure KAFKA_SSL_KEY_CREDENTIALS
  key_credentials="/etc/kafka/secrets/$KAFKA_SSL_KEY_CREDENTIALS"
  path "$key_credentials" existence
  export KAFKA_SSL_KEY_PASSWORD
  KAFKA_SSL_KEY_PASSWORD=$(cat "$key_credentials")

  ensure KAFKA_SSL_KEYSTORE_CREDENTIALS
  keystore_credentials="/etc/kafka/secrets/$KAFKA_SSL_KEYSTORE_CREDENTIALS"
  path "$keystore_credentials" existence
  export KAFKA_SSL_KEYSTORE_PASSWORD
  KAFKA_SSL_KEYSTORE_PASSWORD=$(cat "$keystore_credentials")

  if [[ -n "${KAFKA_SSL_CLIENT_AUTH-}" ]] \
    && { [[ $KAFKA_SSL_CLIENT_AUTH == *"required"* ]] || [[ $KAFKA_SSL_CLIENT_AUTH == *"requested"* ]]; }; then
    ensure KAFKA_SSL_TRUSTSTORE_FILENAME
    export KAFKA_SSL_TRUSTSTORE_LOCATION="/etc/kafka/secrets/$KAFKA_SSL_TRUSTSTORE_FILENAME"
    path "$KAFKA_SSL_TRUSTSTORE_LOCATION" existence

    ensure KAFKA_SSL_TRUSTSTORE_CREDENTIALS
    truststore_credentials="/etc/kafka/secrets/$KAFKA_SSL_TRUSTSTORE_CREDENTIALS"
    path "$truststore_credentials" existence
    export KAFKA_SSL_TRUSTSTORE_PASSWORD
    KAFKA_SSL_TRUSTSTORE_PASSWORD=$(cat "$truststore_credentials")
  fi
fi

if [[ -n "${KAFKA_ADVERTISED_LISTENERS-}" ]] && [[ $KAFKA_ADVERTISED_LISTENERS =~ .*SASL_.*://.* ]]; then
  echo "SASL is enabled."
  ensure KAFKA_OPTS
  if [[ ! $KAFKA_OPTS == *"java.security.auth.login.config"* ]]; then
    echo "KAFKA_OPTS should contain 'java.security.auth.login.config' property."
  fi
fi

if [[ -n "${KAFKA_JMX_OPTS-}" ]]; then
  if [[ ! $KAFKA_JMX_OPTS == *"com.sun.management.jmxremote.rmi.port"* ]]; then
    echo "KAFKA_OPTS should contain 'com.sun.management.jmxremote.rmi.port' property. It is required for accessing the JMX metrics externally."
  fi
fi

# --- launch ----------------------------------------------------------------------------------
echo "===> Launching ... "

if [ -z "${KAFKA_JMX_OPTS-}" ]; then
  export KAFKA_JMX_OPTS="-Dcom.sun.management.jmxremote=true -Dcom.sun.management.jmxremote.authenticate=false -Dcom.sun.management.jmxremote.ssl=false"
fi
KAFKA_JMX_HOSTNAME=${KAFKA_JMX_HOSTNAME:-$(hostname -i | cut -d" " -f1)}
export KAFKA_JMX_HOSTNAME
if [ -n "${KAFKA_JMX_PORT-}" ]; then
  export JMX_PORT=$KAFKA_JMX_PORT
  export KAFKA_JMX_OPTS="$KAFKA_JMX_OPTS -Djava.rmi.server.hostname=$KAFKA_JMX_HOSTNAME -Dcom.sun.management.jmxremote.local.only=false -Dcom.sun.management.jmxremote.rmi.port=$JMX_PORT -Dcom.sun.management.jmxremote.port=$JMX_PORT"
fi

# --- kafka-run-class.sh ----------------------------------------------------------------------
# Options in the order kafka-run-class.sh passes them. As in the official image, the G1 tuning
# that kafka-run-class.sh would add when KAFKA_JVM_PERFORMANCE_OPTS is empty is not added: the
# official launch always sets that variable (to its class-data-sharing archive), so its JVMs
# run with the JVM's default collector settings plus whatever KAFKA_JVM_PERFORMANCE_OPTS holds.
java_bin=java
if [ -n "${JAVA_HOME:-}" ]; then
  java_bin="$JAVA_HOME/bin/java"
fi
log_dir=${LOG_DIR:-$home/logs}
mkdir -p "$log_dir"
classpath="${CLASSPATH:+$CLASSPATH:}$home/libs/*"
if [ -n "${KAFKA_LOG4J_OPTS-}" ] \
  && echo "$KAFKA_LOG4J_OPTS" | grep -qE 'log4j\.[^[:space:]]+(\.properties|\.xml)$'; then
  # A Log4j 1.x configuration: kafka-run-class.sh turns on Log4j 2's 1.x compatibility.
  echo "DEPRECATED: A Log4j 1.x configuration file has been detected, which is no longer recommended." >&2
  export LOG4J_COMPATIBILITY=true
fi
debug_opts=""
if [ -n "${KAFKA_DEBUG:-}" ]; then
  debug_opts=${JAVA_DEBUG_OPTS:-"-agentlib:jdwp=transport=dt_socket,server=y,suspend=${DEBUG_SUSPEND_FLAG:-n},address=${JAVA_DEBUG_PORT:-5005}"}
  echo "Enabling Java debug options: $debug_opts"
fi
jmx_opts=${KAFKA_JMX_OPTS}
if [ -n "${JMX_PORT:-}" ]; then
  jmx_opts="$jmx_opts -Dcom.sun.management.jmxremote.port=$JMX_PORT"
fi

# archive NAME: the option that maps the class-data sharing archive NAME (cds-train.sh made it
# while the image was built), which the official launch appends to KAFKA_JVM_PERFORMANCE_OPTS:
# storage.jsa for the setup, kafka.jsa for the server. A JVM that cannot map it (another
# classpath, say) starts without it.
archive() {
  if [ -f "$home/$1" ]; then
    echo "-XX:SharedArchiveFile=$home/$1"
  fi
}

# run_class HEAP_DEFAULT LOG4J_DEFAULT GC_OPTS ARCHIVE MAIN_CLASS ARGS...: the java command line
# of kafka-run-class.sh. The unquoted option variables are split into words on purpose, as there.
run_class() {
  local heap=${KAFKA_HEAP_OPTS:-$1} log4j=${KAFKA_LOG4J_OPTS:-$2} gc=$3 cds
  cds=$(archive "$4")
  shift 4
  # shellcheck disable=SC2086
  exec "$java_bin" $heap ${KAFKA_JVM_PERFORMANCE_OPTS-} $cds $gc $jmx_opts \
    -Dkafka.logs.dir="$log_dir" $log4j -cp "$classpath" $debug_opts ${KAFKA_OPTS-} "$@"
}

echo "===> Using provided cluster id $CLUSTER_ID ..."

# Render the configuration and format the storage: kafka-run-class.sh as a tool (heap -Xmx256M,
# tools-log4j2.yaml, no GC log unless the variables say otherwise). A log dir that is already
# formatted makes it fail with "already formatted": that is a restart, and the data stays.
if ! result=$( (run_class -Xmx256M "-Dlog4j2.configurationFile=$home/config/tools-log4j2.yaml" \
  "${KAFKA_GC_LOG_OPTS-}" storage.jsa kafka.docker.KafkaDockerWrapper setup \
  --default-configs-dir "$docker_dir" \
  --mounted-configs-dir /mnt/shared/config \
  --final-configs-dir "$home/config") 2>&1); then
  if echo "$result" | grep -qi "already formatted"; then
    echo "$result" | grep -i "already formatted"
  else
    echo "$result"
    exit 1
  fi
else
  echo "$result"
fi

# kafka-server-start.sh: heap -Xmx1G -Xms1G and config/log4j2.yaml unless given; -loggc.
gc_opts=${KAFKA_GC_LOG_OPTS:-"-Xlog:gc*:file=$log_dir/kafkaServer-gc.log:time,tags:filecount=10,filesize=100M"}
run_class "-Xmx1G -Xms1G" "-Dlog4j2.configurationFile=$home/config/log4j2.yaml" "$gc_opts" \
  kafka.jsa kafka.Kafka "$home/config/server.properties"

#!/usr/bin/env bash
# A single-node Apache Kafka 4 (KRaft, broker + controller in one JVM) for local runs and CI.
#
#   bash infra/kafka.sh install   fetch the broker jars from Maven Central (once, cached)
#   bash infra/kafka.sh start     install if needed, start, wait until it answers; the last
#                                 stdout line is KAFKA_BROKERS=127.0.0.1:<port>
#   bash infra/kafka.sh status    print that line when it is running (exit 0), else exit 3
#   bash infra/kafka.sh stop      stop it and delete its data
#
# Environment: SVC_INFRA_CACHE (default ~/.cache/svc-infra), KAFKA_VERSION (default in
# infra/kafka/pom.xml), KAFKA_PORT (default 19092; another free port when taken),
# KAFKA_HEAP_OPTS (default -Xms256m -Xmx512m), KAFKA_START_TIMEOUT seconds (default 120).
set -euo pipefail

INFRA_NAME=kafka
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOME_DIR="$SVC_INFRA_CACHE/kafka"
LIBS="$HOME_DIR/libs"
RUN="$HOME_DIR/run"
PID_FILE="$HOME_DIR/kafka.pid"
ENV_FILE="$SVC_INFRA_CACHE/kafka.env"
POM="$INFRA_DIR/kafka/pom.xml"
LOG4J="$INFRA_DIR/kafka/log4j2.properties"
DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

# The installed jar set is keyed by the pom and the requested version, so editing either
# re-installs and nothing else does.
install_key() { { cat "$POM"; echo "${KAFKA_VERSION:-}"; } | sha256sum | cut -d' ' -f1; }

do_install() {
  local key
  key="$(install_key)"
  if [ -f "$LIBS/.installed" ] && [ "$(cat "$LIBS/.installed")" = "$key" ]; then
    return 0
  fi
  command -v java >/dev/null || die "java is not on PATH (Kafka needs Java 17+)"
  command -v mvn >/dev/null || die "mvn is not on PATH (used to fetch the Kafka jars)"
  log "installing Kafka jars into $LIBS"
  local started=$SECONDS version_arg=()
  [ -n "${KAFKA_VERSION:-}" ] && version_arg=("-Dkafka.version=$KAFKA_VERSION")
  rm -rf "$LIBS.tmp"
  mkdir -p "$HOME_DIR"
  mvn -q -B -Dstyle.color=never -f "$POM" "${version_arg[@]}" "$DEP_PLUGIN:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$LIBS.tmp" >"$HOME_DIR/mvn.log" 2>&1 \
    || { cat "$HOME_DIR/mvn.log" >&2; die "mvn could not fetch the Kafka jars (log above)"; }
  ls "$LIBS.tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || die "no kafka_2.13 jar after mvn"
  rm -rf "$LIBS"
  mv "$LIBS.tmp" "$LIBS"
  echo "$key" >"$LIBS/.installed"
  log "installed $(ls "$LIBS"/kafka_2.13-*.jar | xargs -n1 basename) in $((SECONDS - started))s"
}

current_pid() {
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  # The pid must still be our broker, not a recycled number.
  if pid_alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'; then
    echo "$pid"
  fi
}

current_brokers() { sed -n 's/^KAFKA_BROKERS=//p' "$ENV_FILE" 2>/dev/null || true; }

probe() { node "$INFRA_DIR/kafka/probe.mjs" "$1" "${2:-5000}"; }

# Prints the broker list when our broker runs and answers.
running_brokers() {
  local pid brokers
  pid="$(current_pid)"
  brokers="$(current_brokers)"
  [ -n "$pid" ] && [ -n "$brokers" ] && probe "$brokers" && echo "$brokers"
}

cleanup() {
  stop_pid "$(current_pid)" 30
  rm -rf "$RUN" "$PID_FILE" "$ENV_FILE"
}

write_config() {
  local port="$1" cport="$2"
  cat >"$RUN/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$RUN/data
auto.create.topics.enable=true
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
background.threads=2
log.retention.hours=24
EOF
}

java_opts() {
  # shellcheck disable=SC2206
  local heap=(${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m})
  echo "${heap[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true -Dlog4j2.configurationFile="$LOG4J"
}

do_start() {
  local brokers
  if brokers="$(running_brokers)"; then
    echo "KAFKA_BROKERS=$brokers"
    return 0
  fi
  cleanup
  do_install

  local started=$SECONDS port cport cluster_id pid
  port="$(pick_port "${KAFKA_PORT:-19092}")"
  cport="$(pick_port 19093)"
  [ "$cport" != "$port" ] || cport="$(pick_port 0)"
  mkdir -p "$RUN/data"
  write_config "$port" "$cport"

  # Drawn as `kafka-storage random-uuid` draws it: never beginning with '-', which `format`
  # would read as an option (infra/kafka/cluster-id.mjs).
  cluster_id="$(node "$INFRA_DIR/kafka/cluster-id.mjs")"
  # shellcheck disable=SC2046
  java $(java_opts) -cp "$LIBS/*" kafka.tools.StorageTool format \
    --cluster-id "$cluster_id" -c "$RUN/server.properties" >"$RUN/format.log" 2>&1 \
    || { cat "$RUN/format.log" >&2; die "formatting the storage failed"; }

  # setsid: the broker must outlive the shell (and test runner) that started it; its output
  # goes to a file so no caller's pipe stays open, and it must not inherit the lock (fd 9).
  # shellcheck disable=SC2046
  setsid java $(java_opts) -cp "$LIBS/*" kafka.Kafka "$RUN/server.properties" \
    >"$RUN/kafka.log" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"

  local deadline=$((SECONDS + ${KAFKA_START_TIMEOUT:-120}))
  until probe "127.0.0.1:$port" 3000; do
    if ! pid_alive "$pid"; then
      tail -n 40 "$RUN/kafka.log" >&2 || true
      rm -f "$PID_FILE"
      die "the broker exited during start (log above)"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 40 "$RUN/kafka.log" >&2 || true
      cleanup
      die "the broker did not answer within ${KAFKA_START_TIMEOUT:-120}s"
    fi
    sleep 0.5
  done
  echo "KAFKA_BROKERS=127.0.0.1:$port" >"$ENV_FILE"
  log "started pid $pid on 127.0.0.1:$port in $((SECONDS - started))s (log: $RUN/kafka.log)"
  echo "KAFKA_BROKERS=127.0.0.1:$port"
}

do_status() {
  local brokers
  if brokers="$(running_brokers)"; then
    echo "KAFKA_BROKERS=$brokers"
  else
    log "not running"
    return 3
  fi
}

dispatch "$@"

#!/usr/bin/env bash
# The shared ClickHouse engine (`svc engine`) for a distributed run or CI: one process serving
# its data dir over ClickHouse's HTTP interface on 127.0.0.1, for every role to use.
#
#   bash infra/engine.sh start    start it in the background, wait until it answers; its stdout
#                                 lines are CLICKHOUSE_URL=http://127.0.0.1:<port>, CLICKHOUSE_USER=svc,
#                                 CLICKHOUSE_PASSWORD, CLICKHOUSE_ANALYST_USER=analyst, CLICKHOUSE_ANALYST_PASSWORD
#   bash infra/engine.sh status   print those lines when it is running (exit 0), else exit 3
#   bash infra/engine.sh stop     stop it cleanly (its data dir stays for the next start)
#
# Environment: SVC_INFRA_CACHE (default ~/.cache/svc-infra), ENGINE_DATA_DIR (default
# $SVC_INFRA_CACHE/engine/data: the DATA_DIR `svc engine` serves), ENGINE_HTTP_PORT (default
# 18123) and ENGINE_TCP_PORT (default 19000), other free ports when taken. A C compiler (cc) is
# needed once, to build the engine's launcher (infra/engine/engine-binary.ts).
set -euo pipefail

INFRA_NAME=engine
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOME_DIR="$SVC_INFRA_CACHE/engine"
RUN="$HOME_DIR/run"
DATA="${ENGINE_DATA_DIR:-$HOME_DIR/data}"
PID_FILE="$HOME_DIR/engine.pid"
ENV_FILE="$SVC_INFRA_CACHE/engine.env"
SVC="$INFRA_DIR/../bin/svc.js"

do_install() { :; }

current_pid() {
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if pid_alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'svc.js engine'; then
    echo "$pid"
  fi
}

answers() { curl -sf --max-time 2 "$1/ping" >/dev/null 2>&1; }

running() {
  local url
  [ -n "$(current_pid)" ] && [ -f "$ENV_FILE" ] || return 1
  url="$(sed -n 's/^CLICKHOUSE_URL=//p' "$ENV_FILE")"
  answers "$url"
}

cleanup() {
  # `svc engine` stops the engine cleanly on TERM (KILL QUERY on its serving statement).
  stop_pid "$(current_pid)" 30
  rm -f "$PID_FILE" "$ENV_FILE"
}

do_start() {
  if running; then
    cat "$ENV_FILE"
    return 0
  fi
  cleanup
  local http tcp pid i
  http="$(pick_port "${ENGINE_HTTP_PORT:-18123}")"
  tcp="$(pick_port "${ENGINE_TCP_PORT:-19000}")"
  mkdir -p "$RUN" "$DATA"
  : >"$RUN/vars"
  # setsid: the engine outlives this shell and its terminal; fd 9 (the lock) is not inherited.
  DATA_DIR="$DATA" setsid node "$SVC" engine --http-port "$http" --tcp-port "$tcp" \
    >"$RUN/vars" 2>>"$RUN/svc-engine.log" </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PID_FILE"
  for ((i = 0; i < 1200; i++)); do
    grep -q '^CLICKHOUSE_ANALYST_PASSWORD=' "$RUN/vars" && break
    pid_alive "$pid" || break
    sleep 0.1
  done
  if ! grep -q '^CLICKHOUSE_ANALYST_PASSWORD=' "$RUN/vars"; then
    tail -n 30 "$RUN/svc-engine.log" >&2
    cleanup
    die "svc engine did not start (its log: $RUN/svc-engine.log)"
  fi
  grep '^CLICKHOUSE_' "$RUN/vars" >"$ENV_FILE"
  log "started pid $pid on 127.0.0.1:$http (data $DATA, log $RUN/svc-engine.log)"
  cat "$ENV_FILE"
}

do_status() {
  if running; then
    cat "$ENV_FILE"
  else
    log "not running"
    return 3
  fi
}

dispatch "$@"

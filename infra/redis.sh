#!/usr/bin/env bash
# A local Redis for runs and CI. It holds only what may be lost or rebuilt (quota and rate
# counters, caches, the payment replay guard; customer data lives in ClickHouse), and still keeps
# an append-only file in its data dir, so a restart does not reset counters and replay guards.
#
#   bash infra/redis.sh install   apt-get install redis-server when it is missing
#   bash infra/redis.sh start     install if needed, start, wait for PING; the last stdout
#                                 line is REDIS_URL=redis://127.0.0.1:<port>
#   bash infra/redis.sh status    print that line when it is running (exit 0), else exit 3
#   bash infra/redis.sh stop      stop it (its data dir, with the append-only file, stays for
#                                 the next start)
#
# Environment: SVC_INFRA_CACHE (default ~/.cache/svc-infra), REDIS_PORT (default 16379;
# another free port when taken).
set -euo pipefail

INFRA_NAME=redis
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOME_DIR="$SVC_INFRA_CACHE/redis"
RUN="$HOME_DIR/run"
DATA="$HOME_DIR/data"
PID_FILE="$HOME_DIR/redis.pid"
ENV_FILE="$SVC_INFRA_CACHE/redis.env"

do_install() {
  if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "redis-server is missing and installing it needs root"
    sudo=(sudo -n)
  fi
  log "installing redis-server with apt-get"
  local started=$SECONDS
  mkdir -p "$HOME_DIR"
  { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
    && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      redis-server; } >"$HOME_DIR/apt.log" 2>&1 \
    || { cat "$HOME_DIR/apt.log" >&2; die "apt-get could not install redis-server (log above)"; }
  command -v redis-server >/dev/null || die "redis-server is still missing after apt-get"
  log "installed $(redis-server --version | cut -d' ' -f3) in $((SECONDS - started))s"
}

current_pid() {
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if pid_alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'redis-server'; then
    echo "$pid"
  fi
}

current_port() { sed -n 's|^REDIS_URL=redis://127.0.0.1:||p' "$ENV_FILE" 2>/dev/null || true; }

ping_port() { [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ]; }

running_port() {
  local pid port
  pid="$(current_pid)"
  port="$(current_port)"
  [ -n "$pid" ] && [ -n "$port" ] && command -v redis-cli >/dev/null && ping_port "$port" \
    && echo "$port"
}

cleanup() {
  stop_pid "$(current_pid)" 10
  rm -rf "$RUN" "$PID_FILE" "$ENV_FILE"
}

do_start() {
  local port
  if port="$(running_port)"; then
    echo "REDIS_URL=redis://127.0.0.1:$port"
    return 0
  fi
  cleanup
  do_install

  port="$(pick_port "${REDIS_PORT:-16379}")"
  mkdir -p "$RUN" "$DATA"
  # The append-only file (fsync every second) rather than RDB snapshots: a restart loses at most
  # a second of counts. The lock's fd 9 is closed so the daemon does not hold it.
  redis-server --bind 127.0.0.1 --port "$port" --daemonize yes \
    --pidfile "$PID_FILE" --dir "$DATA" --logfile "$RUN/redis.log" \
    --save '' --appendonly yes --appendfsync everysec --maxmemory 256mb --maxmemory-policy noeviction \
    9>&- </dev/null >/dev/null 2>&1 \
    || { cat "$RUN/redis.log" >&2 2>/dev/null; die "redis-server did not start"; }

  local i
  for ((i = 0; i < 100; i++)); do
    ping_port "$port" && break
    sleep 0.1
  done
  ping_port "$port" || { tail -n 20 "$RUN/redis.log" >&2; cleanup; die "no PONG on port $port"; }
  echo "REDIS_URL=redis://127.0.0.1:$port" >"$ENV_FILE"
  log "started pid $(cat "$PID_FILE") on 127.0.0.1:$port"
  echo "REDIS_URL=redis://127.0.0.1:$port"
}

do_status() {
  local port
  if port="$(running_port)"; then
    echo "REDIS_URL=redis://127.0.0.1:$port"
  else
    log "not running"
    return 3
  fi
}

dispatch "$@"

#!/usr/bin/env bash
# Starts Kafka, Redis and the shared ClickHouse engine (`svc engine`) for a distributed run or CI
# (installing what is missing) and prints
#   KAFKA_BROKERS=127.0.0.1:<port>
#   REDIS_URL=redis://127.0.0.1:<port>
#   CLICKHOUSE_URL=http://127.0.0.1:<port>
#   CLICKHOUSE_USER=svc
#   CLICKHOUSE_PASSWORD=<generated>
# only when every service started; otherwise it prints nothing on stdout, names on stderr each
# service that failed with the end of its output, and exits 1, so that neither form of use
# exports a partial setup (roles without KAFKA_BROKERS would quietly run on the in-process bus):
#   bash infra/up.sh > svc.env && set -a && . ./svc.env && set +a
#   bash infra/up.sh >> "$GITHUB_ENV"
# Stop with: bash infra/kafka.sh stop; bash infra/redis.sh stop; bash infra/engine.sh stop
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

names=()
pids=()
# Starts a service in the background (Kafka's first install is the long part, so all start at
# once); its stdout and stderr go to files read once it ends.
start() {
  local name="$1"
  shift
  "$@" >"$work/$name.out" 2>"$work/$name.err" &
  names+=("$name")
  pids+=($!)
}

start kafka bash "$here/kafka.sh" start
start redis bash "$here/redis.sh" start
start engine bash "$here/engine.sh" start

lines=()
failed=()
for i in "${!names[@]}"; do
  name="${names[$i]}"
  status=0
  wait "${pids[$i]}" || status=$?
  cat "$work/$name.err" >&2
  # Each service ends its stdout with its NAME=value lines (the engine prints three).
  mapfile -t own < <(tac "$work/$name.out" | awk '/^[A-Z][A-Z0-9_]*=.+/ { print; next } { exit }' | tac)
  if [ "$status" -ne 0 ]; then
    failed+=("$name (exit $status)")
  elif [ "${#own[@]}" -eq 0 ]; then
    failed+=("$name (printed no NAME=value line)")
  else
    lines+=("${own[@]}")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "[up] error: did not start: ${failed[*]}; the reason is in its lines above. Nothing was printed to export." >&2
  exit 1
fi
printf '%s\n' "${lines[@]}"

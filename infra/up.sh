#!/usr/bin/env bash
# Starts Kafka, Redis and the shared ClickHouse engine (`svc engine`) for a distributed run or CI
# (installing what is missing) and prints
#   KAFKA_BROKERS=127.0.0.1:<port>
#   REDIS_URL=redis://127.0.0.1:<port>
#   CLICKHOUSE_URL=http://127.0.0.1:<port>  CLICKHOUSE_USER=svc  CLICKHOUSE_PASSWORD=<generated>
# Use: eval "$(bash infra/up.sh)"  or  bash infra/up.sh >> "$GITHUB_ENV".
# Stop with: bash infra/kafka.sh stop; bash infra/redis.sh stop; bash infra/engine.sh stop
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Both start in parallel (Kafka's first install is the long part); each prints its line last.
kafka_out="$(mktemp)"
bash "$here/kafka.sh" start >"$kafka_out" &
kafka_pid=$!
redis_line="$(bash "$here/redis.sh" start | tail -n 1)"
engine_lines="$(bash "$here/engine.sh" start | tail -n 3)"
if ! wait "$kafka_pid"; then
  rm -f "$kafka_out"
  echo "[up] kafka did not start" >&2
  exit 1
fi
kafka_line="$(tail -n 1 "$kafka_out")"
rm -f "$kafka_out"
echo "$kafka_line"
echo "$redis_line"
echo "$engine_lines"

#!/usr/bin/env bash
# ClickHouse's official JDBC driver (what DBeaver, Metabase and most BI tools load), with the jars it
# needs, from Maven Central (infra/jdbc/pom.xml pins the version). The door's JDBC test runs
# test/clients/JdbcProbe.java against it with Java 17.
#
#   bash infra/jdbc.sh install   fetch the jars (no-op when the pinned set is there)
#   bash infra/jdbc.sh start     install, then print JDBC_CLASSPATH=<dir>/* as the last stdout line
#                                (as kafka.sh and redis.sh do)
#
# Environment: SVC_INFRA_CACHE (default ~/.cache/svc-infra).
set -euo pipefail

INFRA_NAME=jdbc
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOME_DIR="$SVC_INFRA_CACHE/jdbc"
LIB="$HOME_DIR/lib"
POM="$INFRA_DIR/jdbc/pom.xml"
STAMP="$LIB/.pom"

do_install() {
  # The stamp holds the pom the jars came from: a changed pin fetches again.
  if [ -d "$LIB" ] && cmp -s "$POM" "$STAMP"; then return 0; fi
  if ! command -v mvn >/dev/null; then
    apt_install maven
    command -v mvn >/dev/null || die "mvn is still missing after apt-get"
  fi
  log "fetching the ClickHouse JDBC driver and its jars into $LIB"
  local started=$SECONDS
  rm -rf "$LIB"
  mkdir -p "$LIB"
  mvn -q -B -f "$POM" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies -DoutputDirectory="$LIB" >"$HOME_DIR/mvn.log" 2>&1 \
    || { tail -20 "$HOME_DIR/mvn.log" >&2; die "mvn could not fetch the driver (log: $HOME_DIR/mvn.log)"; }
  cp "$POM" "$STAMP"
  log "fetched $(ls "$LIB" | wc -l) jars in $((SECONDS - started))s"
}

case "${1:-}" in
  install) lock; do_install ;;
  start) lock; do_install; echo "JDBC_CLASSPATH=$LIB/*" ;;
  *) echo "usage: $0 install|start" >&2; exit 2 ;;
esac

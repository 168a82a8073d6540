#!/usr/bin/env bash
# promtool, Prometheus' own checker of the metrics text format, from Debian's `prometheus`
# package. The tests run `promtool check metrics` on the served /metrics.
#
#   bash infra/promtool.sh install   apt-get install prometheus when promtool is missing
#   bash infra/promtool.sh start     install if needed; the last stdout line is
#                                    PROMTOOL_BIN=<path of promtool> (as kafka.sh and redis.sh do)
#
# The package's Prometheus server is not wanted: only its promtool is used. RUNLEVEL=1 keeps
# invoke-rc.d from starting the server the package installs.
# Environment: SVC_INFRA_CACHE (default ~/.cache/svc-infra).
set -euo pipefail

INFRA_NAME=promtool
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOME_DIR="$SVC_INFRA_CACHE/promtool"

do_install() {
  if command -v promtool >/dev/null; then return 0; fi
  local started=$SECONDS
  apt_install prometheus
  command -v promtool >/dev/null || die "promtool is still missing after apt-get"
  log "installed $(promtool --version 2>&1 | head -1) in $((SECONDS - started))s"
}

case "${1:-}" in
  install) lock; do_install ;;
  start) lock; do_install; echo "PROMTOOL_BIN=$(command -v promtool)" ;;
  *) echo "usage: $0 install|start" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# The Python tools the tests drive (schemathesis, clickhouse-connect, kubernetes-validate), pinned
# in infra/python/requirements.txt, in one virtual environment under the infra cache.
#
#   bash infra/python-tools.sh install   create or update the venv (no-op when the pins are installed)
#   bash infra/python-tools.sh start     install, then print PYTHON_TOOLS_BIN=<the venv's bin dir>
#                                        as the last stdout line (as kafka.sh and redis.sh do)
#
# Environment: SVC_INFRA_CACHE (default ~/.cache/svc-infra).
set -euo pipefail

INFRA_NAME=python-tools
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOME_DIR="$SVC_INFRA_CACHE/python-tools"
VENV="$HOME_DIR/venv"
REQUIREMENTS="$INFRA_DIR/python/requirements.txt"
STAMP="$VENV/.requirements"

do_install() {
  lock
  # The stamp holds the requirements the venv was built from: a changed pin reinstalls.
  if [ -x "$VENV/bin/python" ] && cmp -s "$REQUIREMENTS" "$STAMP"; then return 0; fi
  log "installing $(grep -vc '^#' "$REQUIREMENTS") pinned tools into $VENV"
  local started=$SECONDS
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS" >"$HOME_DIR/pip.log" 2>&1 \
    || { tail -20 "$HOME_DIR/pip.log" >&2; die "pip install failed (log: $HOME_DIR/pip.log)"; }
  cp "$REQUIREMENTS" "$STAMP"
  log "installed in $((SECONDS - started))s"
}

case "${1:-}" in
  install) do_install ;;
  start) do_install; echo "PYTHON_TOOLS_BIN=$VENV/bin" ;;
  *) echo "usage: $0 install|start" >&2; exit 2 ;;
esac

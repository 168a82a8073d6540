# Shared helpers for infra/*.sh (sourced, not run).

SVC_INFRA_CACHE="${SVC_INFRA_CACHE:-$HOME/.cache/svc-infra}"
INFRA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { echo "[$INFRA_NAME] $*" >&2; }
die() { log "error: $*"; exit 1; }

# True when nothing listens on 127.0.0.1:$1 and we may bind it.
port_free() {
  node -e '
    const s = require("net").createServer()
    s.once("error", () => process.exit(1))
    s.listen(Number(process.argv[1]), "127.0.0.1", () => s.close(() => process.exit(0)))
  ' "$1"
}

# Prints $1 when it is free (and not 0), otherwise a port the kernel hands out.
pick_port() {
  if [ "$1" != 0 ] && port_free "$1"; then echo "$1"; return; fi
  node -e '
    const s = require("net").createServer()
    s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })
  '
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# Stops a process by pid: TERM, then KILL after $2 seconds.
stop_pid() {
  local pid="$1" grace="${2:-20}" i
  pid_alive "$pid" || return 0
  kill "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.1
  done
  log "pid $pid did not stop in ${grace}s, killing"
  kill -9 "$pid" 2>/dev/null || true
}

# Serializes the commands of one service ($HOME_DIR/.lock), so parallel starts do not race.
lock() {
  mkdir -p "$HOME_DIR"
  exec 9>"$HOME_DIR/.lock"
  flock 9
}

# The stop every service shares: its own cleanup, then say what happened.
do_stop() {
  local pid
  pid="$(current_pid)"
  cleanup
  if [ -n "$pid" ]; then log "stopped pid $pid"; else log "was not running"; fi
}

# Runs the subcommand $1 with the do_install/do_start/do_status the sourcing script defines.
dispatch() {
  case "${1:-}" in
    install) lock; do_install ;;
    start) lock; do_start ;;
    stop) lock; do_stop ;;
    status) do_status ;;
    *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;
  esac
}

# Installs Debian packages with apt-get (sudo -n when not root), logging to $HOME_DIR/apt.log.
# RUNLEVEL=1 keeps invoke-rc.d from starting a server a package brings (prometheus does).
apt_install() {
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "installing $* needs root"
    sudo=(sudo -n)
  fi
  log "installing $* with apt-get"
  mkdir -p "$HOME_DIR"
  { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
    && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "$@"; } >"$HOME_DIR/apt.log" 2>&1 \
    || { cat "$HOME_DIR/apt.log" >&2; die "apt-get could not install $* (log above)"; }
}

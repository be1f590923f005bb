#!/usr/bin/env bash
# scripts/mailstack-stop.sh - stop the daemons started by scripts/mailstack.sh (by their PID files only).
#
# Usage: [MAILSTACK_DIR=/tmp/mailstack] [MAILSTACK_LEASE=<pid>] scripts/mailstack-stop.sh [--purge]
#   --purge         also delete MAILSTACK_DIR (only when the daemons were stopped)
#   MAILSTACK_LEASE drop this lease (see scripts/mailstack.sh) and stop the daemons only when no other
#                   live lease remains and a leased run started them; otherwise leave them running.
#   Without MAILSTACK_LEASE the daemons are stopped unless a live lease is held (then: nothing is done,
#   a test run is using them; MAILSTACK_FORCE=1 stops them anyway).
set -euo pipefail
D=${MAILSTACK_DIR:-/tmp/mailstack}
log() { echo "mailstack-stop: $*" >&2; }

[[ -d $D ]] || { log "no $D: nothing to stop"; exit 0; }
exec 9>"$D.lock"
flock -w 300 9 || { log "waited 300 s for the lock $D.lock"; exit 1; }

# ---------------------------------------------------------------- leases
# shellcheck source=scripts/leases.sh
source "$(dirname "$0")/leases.sh"
lease_release "$D" "${MAILSTACK_LEASE:-}" "${MAILSTACK_FORCE:-}" "the mail servers" MAILSTACK_FORCE || exit 0

# ---------------------------------------------------------------- stop
stop_pidfile() { # pidfile expected-command-names...
  local f=$1 pid comm
  shift
  [[ -s $f ]] || { log "no $f"; return 0; }
  pid=$(cat "$f")
  if ! kill -0 "$pid" 2>/dev/null; then
    log "pid $pid from $f is not running"
    rm -f "$f"
    return 0
  fi
  comm=$(ps -o comm= -p "$pid" || true)
  if [[ " $* " != *" $comm "* ]]; then
    log "pid $pid is '$comm', not one of: $* - leaving it alone"
    return 0
  fi
  kill -TERM "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid ($comm) ignored TERM for 10 s, sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
  log "stopped $comm (pid $pid)"
}

stop_pidfile "$D/smtpd.pid" smtpd python3 python
stop_pidfile "$D/dovecot/run/master.pid" dovecot

if [[ ${1:-} == --purge ]]; then
  rm -rf "$D"
  rm -f "$D.lock"
  log "removed $D"
fi

#!/usr/bin/env bash
# scripts/pgstack-stop.sh - stop the PostgreSQL started by scripts/pgstack.sh.
#
# Usage: [PGSTACK_DIR=/tmp/pgstack] [PGSTACK_LEASE=<pid>] scripts/pgstack-stop.sh [--purge]
#   --purge        also delete PGSTACK_DIR (only when the server was stopped)
#   PGSTACK_LEASE  drop this lease and stop the server only when no other live lease remains and a
#                  leased run started it; otherwise leave it running.
#   Without PGSTACK_LEASE the server is stopped unless a live lease is held (then nothing is done: a
#   test run is using it; PGSTACK_FORCE=1 stops it anyway).
set -euo pipefail
D=${PGSTACK_DIR:-/tmp/pgstack}
log() { echo "pgstack-stop: $*" >&2; }

[[ -d $D ]] || { log "no $D: nothing to stop"; exit 0; }
exec 9>"$D.lock"
flock -w 300 9 || { log "waited 300 s for the lock $D.lock"; exit 1; }

# shellcheck source=scripts/leases.sh
source "$(dirname "$0")/leases.sh"
lease_release "$D" "${PGSTACK_LEASE:-}" "${PGSTACK_FORCE:-}" "the server" PGSTACK_FORCE || exit 0

BIN=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
if [[ -s $D/data/PG_VERSION && -x $BIN/pg_ctl ]] &&
  runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" status >/dev/null 2>&1; then
  runuser -u postgres -- "$BIN/pg_ctl" -D "$D/data" -m fast -w -t 60 stop >/dev/null
  log "stopped the server in $D/data"
else
  log "no server running in $D/data"
fi
if [[ ${1:-} == --purge ]]; then
  rm -rf "$D"
  log "removed $D"
fi

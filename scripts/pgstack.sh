#!/usr/bin/env bash
# scripts/pgstack.sh - a throwaway PostgreSQL on loopback for the store's tests (issue 35), without
# systemd: Debian's `postgresql` package (installed only if missing), its initdb and pg_ctl run as the
# unprivileged `postgres` system user on a cluster of its own under $PGSTACK_DIR. Nothing is downloaded
# at run time but the Debian package on first use.
#
#   server : 127.0.0.1:$PGSTACK_PORT (default 5433, beside any system PostgreSQL on 5432), and a Unix
#            socket in $PGSTACK_DIR; trust authentication, loopback only; superuser `fairsteward`
#
# Idempotent: creates the cluster once and starts the server only if it is not already running. Only
# 127.0.0.1 is ever bound. Needs root (apt-get; the server runs as `postgres`).
# stdout: `export NAME=value` lines for  eval "$(scripts/pgstack.sh)";  progress goes to stderr:
#   PGSTACK_URL (postgres://fairsteward@127.0.0.1:PORT/postgres), PGSTACK_HOST, PGSTACK_PORT,
#   PGSTACK_USER, PGSTACK_DIR, PGSTACK_BIN (the server's bin directory: pg_ctl, pg_basebackup, ...)
# Stop with scripts/pgstack-stop.sh (same PGSTACK_DIR).
#
# Shared use, as scripts/mailstack.sh: starting and stopping are serialised by a lock
# ($PGSTACK_DIR.lock); a run that sets PGSTACK_LEASE=<pid> holds a lease, and pgstack-stop.sh with the
# same PGSTACK_LEASE stops the server only when no other live lease remains and a leased run started it.
# Tests keep out of each other's way by creating databases of their own.
set -euo pipefail

PGSTACK_DIR=${PGSTACK_DIR:-/tmp/pgstack}
PGSTACK_PORT=${PGSTACK_PORT:-5433}
PGSTACK_USER=fairsteward
D=$PGSTACK_DIR

log() { echo "pgstack: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

[[ $(id -u) == 0 ]] || die "must run as root (apt-get, and the server runs as the postgres user)"

mkdir -p "$(dirname "$D")"
exec 9>"$D.lock"
flock -w 300 9 || die "waited 300 s for the lock $D.lock"

# ---------------------------------------------------------------- install (only what is missing)
newest_bin() { find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1; }
BIN=$(newest_bin)
if [[ -z $BIN || ! -x $BIN/pg_ctl ]] || ! command -v psql >/dev/null; then
  log "installing Debian's postgresql and postgresql-client"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-client >/dev/null
  BIN=$(newest_bin)
  [[ -x $BIN/pg_ctl ]] || die "no pg_ctl under /usr/lib/postgresql after installing postgresql"
fi
id postgres >/dev/null 2>&1 || die "the postgres system user is missing (Debian's postgresql package makes it)"
as_postgres() { runuser -u postgres -- "$@"; }

# ---------------------------------------------------------------- the cluster (once)
DATA=$D/data
mkdir -p "$D"
chown postgres "$D"
chmod 700 "$D"
if [[ ! -s $DATA/PG_VERSION ]]; then
  log "creating a cluster in $DATA ($("$BIN/postgres" --version))"
  as_postgres "$BIN/initdb" -D "$DATA" -A trust -U "$PGSTACK_USER" -E UTF8 --locale=C.UTF-8 >"$D/initdb.log" 2>&1 ||
    die "initdb failed; see $D/initdb.log: $(tail -n 5 "$D/initdb.log")"
  # Loopback only; a socket of its own; enough connections for several stewards and their pools.
  cat >>"$DATA/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PGSTACK_PORT
unix_socket_directories = '$D'
max_connections = 200
EOF
fi

# ---------------------------------------------------------------- start (if not running)
started=0
if as_postgres "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  log "already running on 127.0.0.1:$PGSTACK_PORT"
else
  port_open "$PGSTACK_PORT" && die "127.0.0.1:$PGSTACK_PORT is taken by another program; set PGSTACK_PORT"
  # fd 9 (the lock) must not reach the server, or it would hold the lock for its lifetime.
  as_postgres "$BIN/pg_ctl" -D "$DATA" -l "$D/server.log" -w -t 60 start >/dev/null 9>&- ||
    die "the server did not start; see $D/server.log: $(tail -n 5 "$D/server.log" 2>/dev/null)"
  started=1
  log "started on 127.0.0.1:$PGSTACK_PORT"
fi
psql -h 127.0.0.1 -p "$PGSTACK_PORT" -U "$PGSTACK_USER" -d postgres -qAtc 'SELECT 1' >/dev/null ||
  die "the server does not answer a query on 127.0.0.1:$PGSTACK_PORT"

# ---------------------------------------------------------------- lease
if [[ -n ${PGSTACK_LEASE:-} ]]; then
  # shellcheck source=scripts/leases.sh
  source "$(dirname "$0")/leases.sh"
  lease_take "$D" "$PGSTACK_LEASE" "$started"
fi

cat <<EOF
export PGSTACK_URL=postgres://$PGSTACK_USER@127.0.0.1:$PGSTACK_PORT/postgres
export PGSTACK_HOST=127.0.0.1
export PGSTACK_PORT=$PGSTACK_PORT
export PGSTACK_USER=$PGSTACK_USER
export PGSTACK_DIR=$D
export PGSTACK_BIN=$BIN
EOF

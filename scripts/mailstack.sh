#!/usr/bin/env bash
# scripts/mailstack.sh - real SMTP + IMAP servers on loopback for the mail tests, without systemd.
#
#   SMTP  : OpenSMTPD (Debian package opensmtpd) on 127.0.0.1:$SMTP_PORT, accepts mail for ANY
#           recipient and delivers it to  $MAILSTACK_DIR/mail/<local-part>/Maildir
#           (fallback: MAILSTACK_SMTP=aiosmtpd, a small Python sink from PyPI writing the same maildirs)
#   IMAP  : Dovecot 2.3 (dovecot-imapd) on 127.0.0.1:$IMAP_PORT, plaintext LOGIN/AUTH=PLAIN;
#           ANY user name logs in with $MAILSTACK_PASS and sees the maildir of that local part
#           (send to alice@example.org -> IMAP login "alice" / $MAILSTACK_PASS -> INBOX).
#
# Idempotent: installs packages only if missing, rewrites configs under $MAILSTACK_DIR, starts the
# daemons only if they are not already running. Only 127.0.0.1 is ever bound. Needs root.
# stdout: `export NAME=value` lines for  eval "$(scripts/mailstack.sh)";  progress goes to stderr:
#   MAILSTACK_SMTP_HOST, MAILSTACK_SMTP_PORT, MAILSTACK_IMAP_HOST, MAILSTACK_IMAP_PORT,
#   MAILSTACK_PASS, MAILSTACK_MAILDIRS, MAILSTACK_DIR
# Stop with scripts/mailstack-stop.sh (same MAILSTACK_DIR).
#
# Shared use. Starting and stopping are serialised by a lock ($MAILSTACK_DIR.lock), so concurrent
# test runs never race. A run that sets MAILSTACK_LEASE=<pid> (scripts/test uses its own pid) holds
# a lease on the stack: mailstack-stop.sh with the same MAILSTACK_LEASE drops that lease and stops
# the daemons only when no other live lease remains AND a leased run started them - a stack that was
# already running (started by hand) is left alone. Tests keep out of each other's way by using
# their own unique local parts.
#
# Modelled on the recipe in the team's shared scripts; this copy is the project's own.
set -euo pipefail

MAILSTACK_DIR=${MAILSTACK_DIR:-/tmp/mailstack}
SMTP_PORT=${SMTP_PORT:-2525}
IMAP_PORT=${IMAP_PORT:-1143}
MAILSTACK_PASS=${MAILSTACK_PASS:-test-pass}
MAILSTACK_SMTP=${MAILSTACK_SMTP:-opensmtpd}   # opensmtpd | aiosmtpd
MAILSTACK_USER=mailstack                      # system user that owns the maildirs
D=$MAILSTACK_DIR

log() { echo "mailstack: $*" >&2; }
started=() # PID files of daemons started by this run: stopped again if a later step fails
die() {
  log "ERROR: $*"
  local f
  for f in "${started[@]}"; do
    alive "$f" || continue
    kill "$(cat "$f")" 2>/dev/null
    for _ in $(seq 1 50); do alive "$f" || break; sleep 0.1; done
    log "stopped pid $(cat "$f") again"
    rm -f "$f"
  done
  exit 1
}
alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() { # port name pidfile
  local _
  for _ in $(seq 1 100); do
    port_open "$1" && return 0
    alive "$3" || die "$2 died while starting; see $D/$2.log: $(tail -n 5 "$D/$2.log" 2>/dev/null)"
    sleep 0.1
  done
  die "$2 not listening on 127.0.0.1:$1 after 10 s"
}

[[ $(id -u) == 0 ]] || die "must run as root (apt-get, useradd, and dovecot's privilege separation)"

# One start or stop at a time (fd 9; closed for the daemons, which must not inherit the lock).
mkdir -p "$(dirname "$D")"
exec 9>"$D.lock"
flock -w 300 9 || die "waited 300 s for the lock $D.lock"

# ---------------------------------------------------------------- install (only what is missing)
pkgs=()
command -v dovecot >/dev/null && [[ -x /usr/lib/dovecot/imap ]] || pkgs+=(dovecot-core dovecot-imapd)
if [[ $MAILSTACK_SMTP == opensmtpd ]]; then
  command -v smtpd >/dev/null || pkgs+=(opensmtpd)
elif [[ $MAILSTACK_SMTP != aiosmtpd ]]; then
  die "MAILSTACK_SMTP must be opensmtpd or aiosmtpd"
fi
if ((${#pkgs[@]})); then
  if [[ " ${pkgs[*]} " == *" opensmtpd "* ]]; then
    for mta in postfix exim4-daemon-light exim4-daemon-heavy sendmail-bin; do
      dpkg -s "$mta" >/dev/null 2>&1 && die "$mta is installed and installing opensmtpd would remove it; use MAILSTACK_SMTP=aiosmtpd"
    done
  fi
  log "installing ${pkgs[*]}"
  # Never let the packages start their system-wide instances (those would bind 0.0.0.0:25/143/993).
  rcd_made=
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && rcd_made=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt_install() { apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2; }
  apt_install || { apt-get update -q >&2 && apt_install; } || { [[ -n $rcd_made ]] && rm -f /usr/sbin/policy-rc.d; die "apt-get install failed"; }
  [[ -n $rcd_made ]] && rm -f /usr/sbin/policy-rc.d
fi
if [[ $MAILSTACK_SMTP == aiosmtpd ]] && ! python3 -c 'import aiosmtpd' 2>/dev/null; then
  log "installing aiosmtpd from PyPI"
  python3 -m pip install -q aiosmtpd >&2
fi
dovecot --version | grep -q '^2\.3\.' ||
  die "dovecot $(dovecot --version) found; this config is written for 2.3 (Debian 12). 2.4 (Debian 13) changed the config syntax."

if ! id "$MAILSTACK_USER" >/dev/null 2>&1; then
  useradd --system --create-home --home-dir /var/lib/mailstack --shell /usr/sbin/nologin "$MAILSTACK_USER"
fi
U=$(id -u "$MAILSTACK_USER")
G=$(id -g "$MAILSTACK_USER")

# ---------------------------------------------------------------- configs
mkdir -p "$D/mail" "$D/smtpd" "$D/dovecot/run" "$D/dovecot/state"
chown "$U:$G" "$D/mail"
chmod 755 "$D"

echo "@ $MAILSTACK_USER" >"$D/smtpd/catchall"
cat >"$D/smtpd/smtpd.conf" <<EOF
# OpenSMTPD 6.8: catch-all sink, every recipient -> $D/mail/<local-part>/Maildir
table catchall file:$D/smtpd/catchall
listen on 127.0.0.1 port $SMTP_PORT
action "deliver" maildir "$D/mail/%{rcpt.user:lowercase|strip}/Maildir" user $MAILSTACK_USER virtual <catchall>
match from any for any action "deliver"
EOF

cat >"$D/smtpd/aiosmtpd_sink.py" <<'EOF'
# Fallback SMTP sink: every recipient -> MAILDIR_ROOT/<local-part>/Maildir, owned by uid/gid for Dovecot.
import asyncio, mailbox, os, sys
from aiosmtpd.controller import Controller

root, port, uid, gid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

class Sink:
    async def handle_DATA(self, server, session, envelope):
        for rcpt in envelope.rcpt_tos:
            local = rcpt.split("@", 1)[0].split("+", 1)[0].lower()
            path = os.path.join(root, local, "Maildir")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            box = mailbox.Maildir(path, create=True)
            box.add(b"Delivered-To: " + rcpt.encode() + b"\r\n" + envelope.original_content)
            for d, _, files in os.walk(os.path.join(root, local)):
                os.chown(d, uid, gid)
                for f in files:
                    os.chown(os.path.join(d, f), uid, gid)
        return "250 2.0.0 Message accepted for delivery"

Controller(Sink(), hostname="127.0.0.1", port=port).start()
print(f"aiosmtpd sink on 127.0.0.1:{port} -> {root}", flush=True)
asyncio.new_event_loop().run_forever()
EOF

cat >"$D/dovecot/dovecot.conf" <<EOF
# Dovecot 2.3 standalone test config: loopback only, no TLS, one shared password for every user
base_dir = $D/dovecot/run
state_dir = $D/dovecot/state
instance_name = mailstack-dovecot
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = $D/dovecot.log
mail_location = maildir:$D/mail/%Ln/Maildir
first_valid_uid = $U
last_valid_uid = $U
passdb {
  driver = static
  args = password=$MAILSTACK_PASS
}
userdb {
  driver = static
  args = uid=$U gid=$G home=$D/mail/%Ln
}
# Hibernate a connection that has been in IDLE for a second: the imap-hibernate process
# watches the mailbox itself and hands the connection back the moment mail arrives, which then
# says EXISTS at once (about 15 ms after delivery). An imap process that keeps its IDLE tells of
# new mail only after a fixed 500 ms (NOTIFY_DELAY_MSECS in Dovecot's mailbox-watch.c).
# 1 s is the least Dovecot 2.3 takes. The sockets are open to all local users: loopback tests only.
imap_hibernate_timeout = 1s
service imap-hibernate {
  unix_listener imap-hibernate {
    mode = 0666
  }
}
service imap {
  unix_listener imap-master {
    mode = 0666
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = 0
  }
}
EOF

# ---------------------------------------------------------------- start
SMTP_PID=$D/smtpd.pid
IMAP_PID=$D/dovecot/run/master.pid

if alive "$SMTP_PID"; then
  log "smtp ($MAILSTACK_SMTP) already running, pid $(cat "$SMTP_PID")"
else
  port_open "$SMTP_PORT" && die "127.0.0.1:$SMTP_PORT is already in use by something else"
  if [[ $MAILSTACK_SMTP == opensmtpd ]]; then
    # OpenSMTPD has one compiled-in spool (/var/spool/smtpd): one instance per machine.
    pgrep -x smtpd >/dev/null && die "another smtpd is already running (its spool would be shared)"
    smtpd -n -f "$D/smtpd/smtpd.conf" 1>&2 # config test
    # drop mail queued by an earlier run so that it cannot leak into this one
    for q in incoming queue temporary offline purge; do
      [[ -d /var/spool/smtpd/$q ]] && find "/var/spool/smtpd/$q" -mindepth 1 -delete
    done
    # -d: stay in the foreground and log to stderr (there is no syslog here)
    nohup smtpd -d -f "$D/smtpd/smtpd.conf" >"$D/smtpd.log" 2>&1 </dev/null 9>&- &
  else
    nohup python3 "$D/smtpd/aiosmtpd_sink.py" "$D/mail" "$SMTP_PORT" "$U" "$G" >"$D/smtpd.log" 2>&1 </dev/null 9>&- &
  fi
  echo $! >"$SMTP_PID"
  started+=("$SMTP_PID")
  wait_port "$SMTP_PORT" smtpd "$SMTP_PID"
  log "smtp ($MAILSTACK_SMTP) started, pid $(cat "$SMTP_PID")"
fi

if alive "$IMAP_PID"; then
  log "dovecot already running, pid $(cat "$IMAP_PID")"
else
  port_open "$IMAP_PORT" && die "127.0.0.1:$IMAP_PORT is already in use by something else"
  # daemonizes and writes $IMAP_PID. Its master keeps the fds it was started with, so they must not be the
  # caller's stdout/stderr: a pipeline such as  eval "$(bash mailstack.sh)" 2>&1 | tee  would never end.
  dovecot -c "$D/dovecot/dovecot.conf" </dev/null >"$D/dovecot.start.log" 2>&1 9>&- ||
    die "dovecot failed to start: $(cat "$D/dovecot.start.log")"
  started+=("$IMAP_PID")
  for _ in $(seq 1 50); do [[ -s $IMAP_PID ]] && break; sleep 0.1; done
  wait_port "$IMAP_PORT" dovecot "$IMAP_PID"
  log "dovecot started, pid $(cat "$IMAP_PID")"
fi

# ---------------------------------------------------------------- lease
if [[ -n ${MAILSTACK_LEASE:-} ]]; then
  # shellcheck source=scripts/leases.sh
  source "$(dirname "$0")/leases.sh"
  lease_take "$D" "$MAILSTACK_LEASE" "$((${#started[@]} > 0))"
fi

for v in "MAILSTACK_SMTP_HOST=127.0.0.1" "MAILSTACK_SMTP_PORT=$SMTP_PORT" "MAILSTACK_IMAP_HOST=127.0.0.1" \
  "MAILSTACK_IMAP_PORT=$IMAP_PORT" "MAILSTACK_PASS=$MAILSTACK_PASS" "MAILSTACK_MAILDIRS=$D/mail" "MAILSTACK_DIR=$D"; do
  printf 'export %s=%q\n' "${v%%=*}" "${v#*=}"
done

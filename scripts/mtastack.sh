#!/usr/bin/env bash
# scripts/mtastack.sh - Postfix, Exim or OpenSMTPD run privately on loopback, delivering the steward's
# reply addresses (moves+…@yourclub.org) to `fairsteward ingest` with the recipes in deploy/mail/, for
# the tests of those recipes (tests/it/mail/mta.rs). Without systemd; needs root.
#
#   bash scripts/mtastack.sh start <postfix|exim|opensmtpd>   start one instance; stdout: `export` lines
#   bash scripts/mtastack.sh queue <dir>                        the instance's queue, in the MTA's own words
#   bash scripts/mtastack.sh flush <dir>                        deliver what waits in the queue now
#   bash scripts/mtastack.sh log <dir>                          the instance's log
#   bash scripts/mtastack-stop.sh <dir>                         stop the instance and remove <dir>
#
# Exit status 3: the MTA's packages cannot be obtained (the tests skip it then); 1: anything else.
# start reads MTASTACK_FAIRSTEWARD (the binary) and MTASTACK_CONFIG (the steward's configuration file),
# and prints MTASTACK_DIR (the instance), MTASTACK_PORT (its SMTP port on 127.0.0.1), MTASTACK_USER,
# MTASTACK_UID and MTASTACK_GID (the unprivileged user the pipe runs as: it stands in for the package's
# `fairsteward` user, and must own the steward's data directory).
#
# The recipe files are used verbatim except for three substitutions, made here and nowhere else:
# /usr/bin/fairsteward -> $MTASTACK_FAIRSTEWARD, /etc/fairsteward/fairsteward.toml -> $MTASTACK_CONFIG,
# and the pipe's user `fairsteward` -> $MTASTACK_USER. The domain (yourclub.org) and local part (moves)
# stay: nothing leaves loopback (every other destination is refused or fails at once).
#
# Debian's MTA packages conflict (each provides mail-transport-agent), and OpenSMTPD is installed for
# scripts/mailstack.sh. So Postfix and Exim are fetched with `apt-get download` and unpacked with
# `dpkg-deb -x` into $MTASTACK_ROOT/root, never installed, and run from there with a private
# configuration, queue and port. OpenSMTPD's spool (/var/spool/smtpd) and control socket
# (/run/smtpd.sock) are compiled in: each private smtpd runs in a mount namespace of its own with
# private directories bound over those two, under the name `mtastack-smtpd` so that mailstack's
# `pgrep -x smtpd` does not take it for its own. Every instance binds 127.0.0.1 only, on a free port
# from 2600-2699 (mailstack uses 2525/1143, PostgreSQL 5433). Starting is serialised by a lock.
set -euo pipefail

MTASTACK_ROOT=${MTASTACK_ROOT:-/tmp/mtastack}
R=$MTASTACK_ROOT/root # the unpacked packages
REPO=$(cd "$(dirname "$0")/.." && pwd)
PIPE_USER=mtastack       # stands in for the package's `fairsteward` user
POSTFIX_USER=mtastack-pf # Postfix's mail_owner
POSTFIX_GROUP=mtastack-pd # Postfix's setgid_group (postdrop)
EXIM_USER=Debian-exim    # Exim's user: its name is compiled in, and looked up before the configuration is read

log() { echo "mtastack: $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

[[ $(id -u) == 0 ]] || die "must run as root (useradd, and the MTAs change to the pipe's user)"
cmd=${1:-}
shift || true

# ---------------------------------------------------------------- queue / flush
if [[ $cmd == queue || $cmd == flush || $cmd == log ]]; then
  D=${1:?usage: mtastack.sh $cmd <dir>}
  mta=$(cat "$D/mta")
  case $mta/$cmd in
  postfix/queue) LD_LIBRARY_PATH=$R/usr/lib/postfix "$R/usr/sbin/postqueue" -c "$D/etc" -p ;;
  postfix/flush) LD_LIBRARY_PATH=$R/usr/lib/postfix "$R/usr/sbin/postqueue" -c "$D/etc" -f ;;
  exim/queue)
    # the listing, then each message's own log (why its last delivery was deferred)
    "$D/bin/exim4" -C "$D/exim.conf" -bp
    for id in $("$D/bin/exim4" -C "$D/exim.conf" -bpr | awk '/^ *[0-9]+[smhd] /{print $3}'); do
      echo "--- $id"
      "$D/bin/exim4" -C "$D/exim.conf" -Mvl "$id"
    done
    ;;
  exim/flush) "$D/bin/exim4" -C "$D/exim.conf" -qff ;;
  opensmtpd/queue) nsenter --mount --target "$(cat "$D/smtpd.pid")" smtpctl show queue ;;
  opensmtpd/flush) nsenter --mount --target "$(cat "$D/smtpd.pid")" smtpctl schedule all ;;
  postfix/log) cat "$D/postfix.log" ;;
  exim/log) cat "$D/log/mainlog" ;;
  opensmtpd/log) cat "$D/smtpd.log" ;;
  *) die "unknown MTA $mta in $D" ;;
  esac
  exit 0
fi
[[ $cmd == start ]] || die "usage: mtastack.sh start <postfix|exim|opensmtpd> | queue <dir> | flush <dir> | log <dir>"
mta=${1:-}
[[ $mta == postfix || $mta == exim || $mta == opensmtpd ]] || die "start what? postfix, exim or opensmtpd"
BIN=${MTASTACK_FAIRSTEWARD:?set MTASTACK_FAIRSTEWARD to the fairsteward binary}
CONF=${MTASTACK_CONFIG:?set MTASTACK_CONFIG to the steward configuration file}

mkdir -p "$MTASTACK_ROOT"
chmod 755 "$MTASTACK_ROOT"
exec 9>"$MTASTACK_ROOT.lock"
flock -w 300 9 || die "waited 300 s for the lock $MTASTACK_ROOT.lock"

# ---------------------------------------------------------------- get the packages (only what is missing)
fetch() { # package… : download and unpack into $R those not unpacked yet
  local p want=()
  for p in "$@"; do [[ -e $MTASTACK_ROOT/debs/$p.unpacked ]] || want+=("$p"); done
  ((${#want[@]})) || return 0
  log "fetching ${want[*]}"
  mkdir -p "$MTASTACK_ROOT/debs" "$R"
  # apt-get download writes into the current directory
  (cd "$MTASTACK_ROOT/debs" && { apt-get download -q "${want[@]}" >&2 || { apt-get update -q >&2 && apt-get download -q "${want[@]}" >&2; }; }) ||
    { log "ERROR: apt-get download ${want[*]} failed: the packages cannot be obtained here"; exit 3; }
  for p in "${want[@]}"; do
    dpkg-deb -x "$(ls "$MTASTACK_ROOT"/debs/"${p}"_*.deb | head -n 1)" "$R"
    touch "$MTASTACK_ROOT/debs/$p.unpacked"
  done
}
case $mta in
postfix) fetch postfix ;;
# libidn12 is the one library of exim4-daemon-light that a bookworm system without Exim lacks
exim) fetch exim4-base exim4-daemon-light libidn12 ;;
opensmtpd)
  if ! command -v smtpd >/dev/null; then
    # Installing it beside an installed Postfix or Exim would remove them: only where none is.
    log "installing opensmtpd"
    rcd_made=
    [[ -e /usr/sbin/policy-rc.d ]] || { printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && rcd_made=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends opensmtpd >&2 || install_failed=1
    [[ -n $rcd_made ]] && rm -f /usr/sbin/policy-rc.d
    [[ -z ${install_failed:-} ]] || { log "ERROR: apt-get install opensmtpd failed: it cannot be obtained here"; exit 3; }
  fi
  ;;
esac

# ---------------------------------------------------------------- users
getent group "$POSTFIX_GROUP" >/dev/null || groupadd --system "$POSTFIX_GROUP"
for u in "$PIPE_USER" "$POSTFIX_USER" "$EXIM_USER"; do
  id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --home-dir / --shell /usr/sbin/nologin "$u"
done

# ---------------------------------------------------------------- the instance
# Ports of instances whose process is gone (a test killed before it could stop its MTA) are free again.
for taken in "$MTASTACK_ROOT"/port-*; do
  [[ -L $taken ]] || continue
  alive "$taken/pid" || { rm -rf "$(readlink "$taken")" && rm -f "$taken"; }
done
port=${MTASTACK_PORT:-}
if [[ -z $port ]]; then
  for p in $(seq 2600 2699); do
    port_open "$p" || [[ -e $MTASTACK_ROOT/port-$p ]] || { port=$p && break; }
  done
  [[ -n $port ]] || die "no free port in 127.0.0.1:2600-2699"
fi
port_open "$port" && die "127.0.0.1:$port is already in use"
D=$MTASTACK_ROOT/$mta-$port
rm -rf "$D"
mkdir -p "$D"
chmod 755 "$D"
echo "$mta" >"$D/mta"
ln -sfn "$D" "$MTASTACK_ROOT/port-$port" # taken until mtastack-stop.sh

recipe() { # file under deploy/mail/: verbatim but for the three substitutions
  sed -e "s|/usr/bin/fairsteward|$BIN|g" -e "s|/etc/fairsteward/fairsteward.toml|$CONF|g" \
    -e "s/\(\buser *= *\|\"@\" = \)fairsteward\b/\1$PIPE_USER/g" "$REPO/deploy/mail/$1"
}

wait_port() { # pidfile log
  local _
  for _ in $(seq 1 100); do
    port_open "$port" && return 0
    [[ -s $1 ]] && ! kill -0 "$(cat "$1")" 2>/dev/null && die "$mta died while starting: $(tail -n 20 "$2" 2>/dev/null)"
    sleep 0.1
  done
  die "$mta is not listening on 127.0.0.1:$port after 10 s: $(tail -n 20 "$2" 2>/dev/null)"
}

case $mta in
postfix)
  mkdir -p "$D/etc" "$D/queue" "$D/data"
  chown "$POSTFIX_USER:" "$D/data"
  cat >"$D/etc/main.cf" <<EOF
# A private Postfix: its own configuration, queue and port; the recipe is appended below.
compatibility_level = 3.6
queue_directory = $D/queue
data_directory = $D/data
command_directory = $R/usr/sbin
daemon_directory = $R/usr/lib/postfix/sbin
meta_directory = $R/etc/postfix
shlib_directory = $R/usr/lib/postfix
import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C LD_LIBRARY_PATH=$R/usr/lib/postfix
mail_owner = $POSTFIX_USER
setgid_group = $POSTFIX_GROUP
default_privs = nobody
myhostname = mtastack.yourclub.org
mydomain = yourclub.org
mydestination = yourclub.org
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
default_transport = error:this test MTA delivers to the steward only
relay_transport = error:this test MTA delivers to the steward only
alias_maps =
alias_database =
smtputf8_enable = no
maillog_file_prefixes = $D
maillog_file = $D/postfix.log
# retry deferred mail soon (the test flushes the queue anyway)
queue_run_delay = 10s
minimal_backoff_time = 10s
maximal_backoff_time = 20s

EOF
  recipe postfix/main.cf >>"$D/etc/main.cf"
  cat >"$D/etc/master.cf" <<EOF
# A private Postfix: SMTP on 127.0.0.1:$port and the services it needs; the recipe is appended below.
127.0.0.1:$port inet n - n - - smtpd
pickup    unix  n - n 60   1 pickup
cleanup   unix  n - n -    0 cleanup
qmgr      unix  n - n 300  1 qmgr
rewrite   unix  - - n -    - trivial-rewrite
bounce    unix  - - n -    0 bounce
defer     unix  - - n -    0 bounce
trace     unix  - - n -    0 bounce
verify    unix  - - n -    1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -    - proxymap
showq     unix  n - n -    - showq
error     unix  - - n -    - error
retry     unix  - - n -    - error
discard   unix  - - n -    - discard
local     unix  - n n -    - local
anvil     unix  - - n -    1 anvil
scache    unix  - - n -    1 scache
postlog   unix-dgram n - n - 1 postlogd

EOF
  recipe postfix/master.cf >>"$D/etc/master.cf"
  export LD_LIBRARY_PATH=$R/usr/lib/postfix
  "$R/usr/sbin/postfix" -c "$D/etc" check >&2 || die "postfix check failed"
  "$R/usr/sbin/postfix" -c "$D/etc" start </dev/null >"$D/start.log" 2>&1 9>&- ||
    die "postfix did not start: $(cat "$D/start.log") $(tail -n 20 "$D/postfix.log" 2>/dev/null)"
  for _ in $(seq 1 50); do [[ -s $D/queue/pid/master.pid ]] && break; sleep 0.1; done
  tr -d ' ' <"$D/queue/pid/master.pid" >"$D/pid"
  wait_port "$D/pid" "$D/postfix.log"
  ;;
exim)
  mkdir -p "$D/bin" "$D/spool" "$D/log"
  chown "$EXIM_USER:" "$D/spool" "$D/log"
  # Exim re-executes itself ($exim_path) for deliveries and drops its environment: the wrapper
  # brings the unpacked libidn12 along. The unpacked binary loses its set-uid bit: nothing here needs it.
  chmod u-s "$R/usr/sbin/exim4"
  cat >"$D/bin/exim4" <<EOF
#!/bin/sh
LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu exec $R/usr/sbin/exim4 "\$@"
EOF
  chmod 755 "$D/bin/exim4"
  {
    cat <<EOF
# A private Exim: its own configuration, spool and port; the recipe's router and transport below.
exim_path = $D/bin/exim4
exim_user = $EXIM_USER
exim_group = $EXIM_USER
never_users = root
spool_directory = $D/spool
log_file_path = $D/log/%slog
primary_hostname = mtastack.yourclub.org
qualify_domain = yourclub.org
domainlist local_domains = yourclub.org
local_interfaces = <; 127.0.0.1.$port
daemon_smtp_ports = $port
host_lookup =
rfc1413_hosts =
keep_environment =
tls_advertise_hosts =
# Exim honours a -C configuration only for root, or when it is listed in /etc/exim4/trusted_configs
# (left alone here): the daemon's own processes, which run as Exim's user, would lose their privilege
# and could not run the pipe as the steward's user. So the daemon only queues what it takes over SMTP,
# and a queue runner started by root every second delivers it (Debian's QUEUERUNNER=separate), through
# the same router and transport, and with the same retry rules, as an immediate delivery.
queue_only
acl_smtp_rcpt = acl_check_rcpt

begin acl
acl_check_rcpt:
  accept domains = +local_domains
  deny   message = this test MTA delivers to the steward only

begin routers
EOF
    recipe exim/router
    echo
    echo "begin transports"
    recipe exim/transport
    cat <<EOF

begin retry
*   *   F,2h,15m; G,16h,1h,1.5; F,4d,6h
EOF
  } >"$D/exim.conf"
  "$D/bin/exim4" -C "$D/exim.conf" -bV >"$D/log/check" 2>&1 || die "exim refuses its configuration: $(cat "$D/log/check")"
  "$D/bin/exim4" -C "$D/exim.conf" -bd -oP "$D/pid" </dev/null >"$D/log/start" 2>&1 9>&- ||
    die "exim did not start: $(cat "$D/log/start")"
  for _ in $(seq 1 50); do [[ -s $D/pid ]] && break; sleep 0.1; done
  wait_port "$D/pid" "$D/log/mainlog"
  # the queue runner: a plain -q skips deferred mail until its retry time
  nohup sh -c 'while [ -e "$1/mta" ]; do "$1/bin/exim4" -C "$1/exim.conf" -q; sleep 1; done' sh "$D" \
    </dev/null >"$D/log/runner" 2>&1 9>&- &
  echo $! >"$D/runner.pid"
  ;;
opensmtpd)
  mkdir -p "$D/spool" "$D/run"
  chmod 711 "$D/spool"
  {
    echo "# A private OpenSMTPD on 127.0.0.1:$port; the recipe below, then a refusal for everything else."
    echo "listen on 127.0.0.1 port $port"
    recipe opensmtpd/smtpd.conf
    echo 'match from any for any reject'
  } >"$D/smtpd.conf"
  smtpd -n -f "$D/smtpd.conf" >"$D/check.log" 2>&1 || die "smtpd refuses its configuration: $(cat "$D/check.log")"
  ln -sf "$(command -v smtpd)" "$D/mtastack-smtpd"
  # -d: stays in the foreground and logs to stderr (there is no syslog here)
  nohup unshare --mount --propagation private sh -c \
    'mount --bind "$1/spool" /var/spool/smtpd && mount --bind "$1/run" /run && exec "$1/mtastack-smtpd" -d -f "$1/smtpd.conf"' \
    sh "$D" >"$D/smtpd.log" 2>&1 </dev/null 9>&- &
  echo $! >"$D/pid"
  wait_port "$D/pid" "$D/smtpd.log"
  cp "$D/pid" "$D/smtpd.pid"
  ;;
esac
log "$mta started on 127.0.0.1:$port, pid $(cat "$D/pid"), in $D"

for v in "MTASTACK_DIR=$D" "MTASTACK_PORT=$port" "MTASTACK_USER=$PIPE_USER" "MTASTACK_UID=$(id -u "$PIPE_USER")" \
  "MTASTACK_GID=$(id -g "$PIPE_USER")"; do
  printf 'export %s=%q\n' "${v%%=*}" "${v#*=}"
done

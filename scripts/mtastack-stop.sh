#!/usr/bin/env bash
# scripts/mtastack-stop.sh <dir> - stops an instance that scripts/mtastack.sh started and removes its
# directory (configuration, queue, logs). Only that instance's own processes are signalled.
set -euo pipefail
MTASTACK_ROOT=${MTASTACK_ROOT:-/tmp/mtastack}
D=${1:?usage: mtastack-stop.sh <dir printed as MTASTACK_DIR>}
[[ -f $D/mta ]] || { echo "mtastack: $D is not an instance" >&2; exit 1; }
mta=$(cat "$D/mta")
R=$MTASTACK_ROOT/root
stopped() { ! { [[ -s $D/pid ]] && kill -0 "$(cat "$D/pid")" 2>/dev/null; }; }
case $mta in
postfix) LD_LIBRARY_PATH=$R/usr/lib/postfix "$R/usr/sbin/postfix" -c "$D/etc" stop >&2 2>/dev/null || true ;;
exim)
  [[ -s $D/runner.pid ]] && kill "$(cat "$D/runner.pid")" 2>/dev/null || true
  [[ -s $D/pid ]] && kill "$(cat "$D/pid")" 2>/dev/null || true
  ;;
*) [[ -s $D/pid ]] && kill "$(cat "$D/pid")" 2>/dev/null || true ;;
esac
for _ in $(seq 1 100); do stopped && break; sleep 0.1; done
stopped || { kill -9 "$(cat "$D/pid")" 2>/dev/null || true; }
port=${D##*-}
rm -f "$MTASTACK_ROOT/port-$port"
rm -rf "$D"
echo "mtastack: $mta in $D stopped" >&2

# scripts/leases.sh - the leases test runs hold on a shared test service; sourced by
# scripts/mailstack.sh, scripts/pgstack.sh and their -stop scripts (each defines `log` and `die`).
#
# A lease is an empty file $DIR/leases/<pid>, the pid of the run holding it; $DIR/leases/.started-by-lease
# says a leased run started the service, so the last lease holder stops it. A service started by hand
# is left running.

# lease_take DIR PID STARTED: records the lease of PID; STARTED=1 when this run started the service.
lease_take() {
  local dir=$1 pid=$2 started=$3
  [[ $pid =~ ^[0-9]+$ ]] || die "the lease must be the pid of the process holding it, not '$pid'"
  mkdir -p "$dir/leases"
  : >"$dir/leases/$pid"
  # the service belongs to leased runs: the last lease holder stops it
  ((started)) && : >"$dir/leases/.started-by-lease"
  log "lease $pid taken ($(find "$dir/leases" -mindepth 1 -not -name '.*' | wc -l) held)"
}

# leases_live DIR [PID]: prints the live leases other than PID's; drops the dead ones.
leases_live() {
  local dir=$1 own=${2:-} f pid
  [[ -d $dir/leases ]] || return 0
  for f in "$dir/leases"/*; do
    [[ -e $f ]] || continue
    pid=${f##*/}
    if [[ $pid == "$own" ]]; then
      continue
    elif kill -0 "$pid" 2>/dev/null; then
      echo "$pid"
    else
      rm -f "$f" # its holder died without stopping
    fi
  done
}

# lease_release DIR PID FORCE WHAT FORCE_VAR: drops PID's lease (none when PID is empty) and succeeds
# when the service should stop now: no other live lease, and (for a lease) a leased run started it;
# without a lease, FORCE=1 stops it despite live leases. Otherwise it says why WHAT stays running.
lease_release() {
  local dir=$1 pid=$2 force=$3 what=$4 force_var=$5 others
  if [[ -n $pid ]]; then
    rm -f "$dir/leases/$pid"
    others=$(leases_live "$dir" "$pid" | wc -l)
    if ((others > 0)); then
      log "lease $pid dropped; $others other run(s) still use $what: left running"
      return 1
    fi
    if [[ ! -e $dir/leases/.started-by-lease ]]; then
      log "lease $pid dropped; $what ran before the test run: left running"
      return 1
    fi
  else
    others=$(leases_live "$dir" | wc -l)
    if ((others > 0)) && [[ $force != 1 ]]; then
      log "$others test run(s) hold a lease on $what (pids: $(leases_live "$dir" | tr '\n' ' ')): left running ($force_var=1 stops it anyway)"
      return 1
    fi
  fi
  rm -f "$dir/leases/.started-by-lease"
}

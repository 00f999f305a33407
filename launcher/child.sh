# launcher/child.sh: how collbench-run runs a long step (the build, mpirun or srun, the profile,
# the charts and the verdict) so that a signal reaches it the way a terminal means it (sourced;
# functions only).
#
# Each step runs as a session of its own (setsid), with stdin from /dev/null. A terminal's
# Ctrl-C, a hangup or `kill -- -PGID` goes to collbench-run's whole process group: without its
# own session mpirun got such a signal twice (from the group, then forwarded by collbench-run),
# and mpirun aborts at once on the second without ending its ranks (they are in process groups
# of their own: orphans holding their GPUs). Now the signal reaches only collbench-run, which
# passes it on exactly once, as SIGTERM to the step's process group (mpirun then ends its ranks;
# make ends its compilers); a second signal ends every process of the step at once (SIGKILL).
# When the step's leader is gone, whatever is left of its session (ranks of a mpirun killed from
# outside, a compiler) is ended too, so no process of a run outlives it.
#
#   cb_child_run [--log|--out NAME] CMD...        runs CMD as its own session and waits for it;
#                                                 returns its status
#   cb_child_start [--log|--out NAME] VAR CMD...  starts it, its pid (= its session and process
#                                                 group id) in VAR
#   --log NAME: CMD's stdout and stderr go to $tmpdir/NAME (collbench-run's private temporary
#   folder; a FIFO there too); --out NAME: its stdout only. The child opens it itself: a
#   redirection on the call instead would hold for collbench-run's own signal trap too (its
#   message would land in the file, and its SIGPIPE handling would be undone on return).
#   cb_child_wait PID          waits for it (through any trapped signal), then ends what is left
#                              of its session; returns its status (128 + N: killed by signal N)
#   cb_child_signal            called from a signal trap: the running step gets SIGTERM once,
#                              SIGKILL for its whole session on a later signal
#
# A step's SIGTERM goes to its process group, never to the pid alone: until setsid has made the
# step's session the child is a fork of this shell, which still holds this shell's traps for a
# moment, and a signal it takes there is lost (seen under load: mpirun then ran to its end). So a
# signal that comes before the group exists is kept pending (cb_child_pending) and cb_child_wait
# sends it as soon as the group appears; a child that never gets that far (blocked before its
# exec) is killed after CB_CHILD_PENDING_S seconds: nothing of the step has started then.
cb_child_pid="" cb_child_signalled=0 cb_child_pending=0 cb_child_pending_t=0
CB_CHILD_PENDING_S=3

# The pids of the processes of session SID, one per line (from /proc: field 6 of stat, read
# after the command name, which may hold spaces and parentheses).
cb_session_pids() {
  local sid=$1 f s fields
  for f in /proc/[0-9]*/stat; do
    read -r s 2> /dev/null < "$f" || continue
    read -r -a fields <<< "${s##*) }"
    [ "${fields[3]:-}" = "$sid" ] && echo "${f//[!0-9]/}"
  done
}

# Ends every process left in session SID: SIGTERM, then SIGKILL for those still there 3 s later.
cb_session_end() {
  local sid=$1 pids i
  [ -n "$sid" ] && [ "$sid" != "$(cb_own_sid)" ] || return 0
  pids=$(cb_session_pids "$sid")
  [ -n "$pids" ] || return 0
  kill -TERM $pids 2> /dev/null
  for i in $(seq 30); do
    pids=$(cb_session_pids "$sid")
    [ -n "$pids" ] || return 0
    sleep 0.1
  done
  kill -KILL $pids 2> /dev/null
}

cb_own_sid() {
  local s fields
  read -r s < /proc/$$/stat
  read -r -a fields <<< "${s##*) }"
  echo "${fields[3]}"
}

cb_child_start() {
  local how="" name=""
  case $1 in --log | --out) how=$1 name=$2; shift 2 ;; esac
  local var=$1
  shift
  cb_child_signalled=0 cb_child_pending=0
  case $how in
    --log) setsid "$@" < /dev/null > "$tmpdir/$name" 2>&1 & ;;
    --out) setsid "$@" < /dev/null > "$tmpdir/$name" & ;;
    *) setsid "$@" < /dev/null & ;;
  esac
  cb_child_pid=$!
  printf -v "$var" %s "$cb_child_pid"
}

cb_child_wait() {
  local pid=$1 rc
  while :; do
    # a pending SIGTERM first (it returns once sent, or the child is gone: the wait then
    # collects its status)
    [ "$cb_child_pending" = 0 ] || cb_child_deliver "$pid"
    wait "$pid"
    rc=$?
    kill -0 "$pid" 2> /dev/null || break
  done
  # a wait cut short by a trapped signal as the step ended returns 128 + that signal: the step's
  # own status is then still there to collect (127: it was the status already)
  if [ "$rc" -gt 128 ]; then
    wait "$pid" 2> /dev/null
    local again=$?
    [ "$again" = 127 ] || rc=$again
  fi
  cb_child_pid="" cb_child_pending=0
  cb_session_end "$pid"
  return "$rc"
}

cb_child_run() {
  local pid
  case $1 in
    --log | --out) cb_child_start "$1" "$2" pid "${@:3}" ;;
    *) cb_child_start pid "$@" ;;
  esac
  cb_child_wait "$pid"
}

cb_child_signal() {
  local pid=$cb_child_pid
  [ -n "$pid" ] || return 0
  cb_child_signalled=$((cb_child_signalled + 1))
  if [ "$cb_child_signalled" = 1 ]; then
    # once: a second SIGTERM makes mpirun abort without ending its ranks. No such group yet:
    # the child has not made its session; cb_child_wait sends it once the group exists.
    kill -TERM -- "-$pid" 2> /dev/null || cb_child_pending=1 cb_child_pending_t=$SECONDS
  else
    cb_child_pending=0
    kill -KILL "$pid" $(cb_session_pids "$pid") 2> /dev/null
  fi
  return 0
}

# cb_child_deliver PID: the pending SIGTERM, sent to PID's group once it exists (polled: the
# child is between fork and setsid, milliseconds); SIGKILL for PID if it is still not there
# CB_CHILD_PENDING_S seconds after the signal. Returns once it was sent or PID is gone.
cb_child_deliver() {
  local pid=$1
  while [ "$cb_child_pending" = 1 ] && kill -0 "$pid" 2> /dev/null; do
    if kill -TERM -- "-$pid" 2> /dev/null; then
      cb_child_pending=0
    elif [ $((SECONDS - cb_child_pending_t)) -ge "$CB_CHILD_PENDING_S" ]; then
      cb_child_pending=0
      kill -KILL "$pid" 2> /dev/null
    else
      sleep 0.01
    fi
  done
  cb_child_pending=0
}

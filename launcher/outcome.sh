# launcher/outcome.sh: what a run's folder says when mpirun (or srun) has ended, from the
# folder's own evidence (sourced by collbench-run; functions only).
#
# collbench writes results.json when a run is finished (results.csv and
# results.json.partial.jsonl grow row by row before): a folder without results.json was cut short,
# whatever the launcher's exit code says. mpirun's exit code alone misleads: sent INT, TERM or
# HUP, mpirun ends its ranks and exits 1, collbench's code for wrong results; a rank killed by
# signal N gives 128 + N with "exited on signal N" in the output; a host it cannot reach gives
# 255 (not a signal: N would be 127).
#
#   cb_outcome DIR RC INTERRUPTED LAUNCHER   sets outcome_rc (collbench-run's exit code for the
#                                            run) and outcome_why (empty: the folder is complete;
#                                            else the line for DIR/incomplete.txt), and prints a
#                                            line on stderr saying why, when there is one
# outcome_rc: collbench's own code for a complete run (0, 1 wrong results, ...); 128 + N when
# signal N cut it short (sent to collbench-run: INTERRUPTED = N; to a rank, named in the output;
# to mpirun, its wait status), 143 when mpirun ended with its own exit 1 before collbench
# finished (what mpirun does when sent INT, TERM or HUP: the signal itself is not known); 3 for a
# rank that crashed (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE) and when the launcher could not
# start collbench (the cause from its output: an unreachable host, no slots); collbench's code
# (2 to 5) when collbench stopped the run itself.

# The first line of the launcher's output that names why it could not start the ranks.
cb_outcome_cause() {
  grep -m 1 -E '^(ssh|rsh|srun): |Could not resolve|unable to reliably start|not enough slots|Connection refused|Permission denied|No route to host|Host key verification failed|could not be found' \
    -- "$1/output.txt" 2> /dev/null | cut -c1-200
}

cb_outcome() {
  local dir=$1 rc=$2 sig=$3 launcher=$4 rows=0 started=0 n name
  outcome_rc=$rc outcome_why=""
  if [ -f "$dir/results.csv" ] && [ ! -L "$dir/results.csv" ]; then
    rows=$(grep -c . -- "$dir/results.csv" 2> /dev/null)
    rows=$((rows > 0 ? rows - 1 : 0))
    started=1
  fi
  [ ! -e "$dir/results.json.partial.jsonl" ] || started=1
  if [ -f "$dir/results.json" ] && [ ! -L "$dir/results.json" ]; then
    # complete: collbench's own code, unless a rank died after writing it
    if [ "$sig" = 0 ] && [ "$rc" -gt 128 ]; then
      echo "collbench-run: $launcher exit $rc after the results were complete (a rank ended badly in its teardown); exit 3" >&2
      outcome_rc=3
    fi
    return 0
  fi
  if [ "$sig" = 13 ]; then
    outcome_why="interrupted: collbench-run's output was closed (SIGPIPE)"
    outcome_rc=141
  elif [ "$sig" != 0 ]; then
    outcome_why="interrupted: SIG$(kill -l "$sig") to collbench-run"
    outcome_rc=$((128 + sig))
  elif n=$(grep -m 1 -oE 'exited on signal [0-9]+' -- "$dir/output.txt" 2> /dev/null) && [ -n "$n" ]; then
    n=${n##* }
    name=SIG$(kill -l "$n" 2> /dev/null || echo "$n")
    case $name in
      SIGSEGV | SIGBUS | SIGABRT | SIGILL | SIGFPE | SIGSYS | SIGTRAP)
        outcome_why="a rank crashed ($name)"
        outcome_rc=3 ;;
      *)
        outcome_why="a rank was killed by $name (from outside the run: kill, the OOM killer)"
        outcome_rc=$((128 + n)) ;;
    esac
  elif [ "$rc" -gt 128 ] && [ "$rc" -le 192 ] && [ "$started" = 1 ]; then
    outcome_why="$launcher was killed by SIG$(kill -l $((rc - 128)) 2> /dev/null || echo $((rc - 128)))"
  elif [ "$rc" = 1 ] && [ "$started" = 1 ]; then
    outcome_why="$launcher ended (exit 1) before collbench finished: it had been sent a signal (INT, TERM and HUP end mpirun with exit 1) or lost a node"
    outcome_rc=143
  elif [ "$started" = 0 ] && { [ "$rc" = 1 ] || [ "$rc" -gt 128 ]; }; then
    local cause
    cause=$(cb_outcome_cause "$dir")
    outcome_why="$launcher did not start collbench (exit $rc): ${cause:-see output.txt}"
    outcome_rc=3
  elif [ "$rc" = 0 ]; then
    outcome_why="collbench ended (exit 0) without writing results.json"
    outcome_rc=3
  else
    outcome_why="collbench stopped the run (exit $rc: see output.txt)"
  fi
  echo "collbench-run: $dir is incomplete: $outcome_why; $rows result row(s) kept; exit $outcome_rc" >&2
  outcome_why="$outcome_why; $rows result row(s) written"
}

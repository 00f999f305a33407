# launcher/output.sh: a run's output, shown while it lasts and kept in its folder (sourced by
# collbench-run; functions only).
#
#   cb_output_launch DIR COMMAND...   runs COMMAND (mpirun or srun and the ranks) as a step of
#       its own (launcher/child.sh), its stdout and stderr shown on collbench-run's stdout and
#       kept in DIR/output.txt (a new file, launcher/newfile.sh; at most CB_OUTPUT_MAX bytes),
#       and waits for it and for the processes that carry its output. Returns COMMAND's status.
#
# COMMAND writes into a FIFO read by tee; tee writes the terminal and a second FIFO whose reader
# (head -c) fills output.txt. tee and that reader ignore INT, TERM and HUP: a terminal's signal
# reaches them too, and they must drain the run's last lines (a run whose output reader dies
# gets SIGPIPE: mpirun then crashed, "a rank was killed by SIGSEGV"). A closed stdout
# (`collbench-run | head -3`, a terminal gone) never breaks the run's pipe: tee goes on filling
# output.txt and reports the broken stdout on its stderr, where a watcher turns it into SIGPIPE
# for collbench-run, which then stops the run as for any signal (exit 141, folder incomplete).
. "$(dirname -- "${BASH_SOURCE[0]}")/newfile.sh" # what this file uses, when sourced alone
. "$(dirname -- "${BASH_SOURCE[0]}")/child.sh" # what this file uses, when sourced alone
CB_OUTPUT_MAX=$((256 << 20))

cb_output_launch() {
  local dir=$1 ofd rc tee_pid head_pid watch_pid pid
  shift
  cb_newfile_open ofd "$dir/output.txt" || return 3
  rm -f -- "$tmpdir/run.fifo" "$tmpdir/file.fifo" "$tmpdir/tee.fifo"
  if ! mkfifo -- "$tmpdir/run.fifo" "$tmpdir/file.fifo" "$tmpdir/tee.fifo"; then
    exec {ofd}>&-
    echo "collbench-run: cannot create FIFOs in $tmpdir" >&2
    return 3
  fi
  # each helper ignores the signals before it opens its FIFO (an open blocks until the other
  # end is there: a signal then would end a helper on a redirection of the subshell itself)
  (trap '' INT TERM HUP; exec head -c "$CB_OUTPUT_MAX" < "$tmpdir/file.fifo") 1>&"$ofd" &
  head_pid=$!
  (trap '' INT TERM HUP; grep -q 'standard output' < "$tmpdir/tee.fifo" && kill -s PIPE "$$") &
  watch_pid=$!
  (trap '' INT TERM HUP; LC_ALL=C exec tee --output-error=warn -- "$tmpdir/file.fifo" < "$tmpdir/run.fifo" 2> "$tmpdir/tee.fifo") &
  tee_pid=$!
  exec {ofd}>&-
  cb_child_start --log run.fifo pid "$@"
  # a signal that came after the caller's last look but before the step had a pid: passed on now
  [ "${interrupted:-0}" = 0 ] || [ "$cb_child_signalled" != 0 ] || cb_child_signal
  cb_child_wait "$pid"
  rc=$?
  # A step killed before it opened run.fifo (a signal between its fork and its exec) leaves tee
  # blocked in its open, and head and the watcher behind it. A FIFO opened read-write and closed
  # here (that open never blocks) gives a blocked open its other end, then end of file: run.fifo
  # at once (the step is gone), file.fifo and tee.fifo when their reader is gone while tee lives
  # (tee blocked opening them) or once tee is gone (no writer can come any more).
  cb_output_unblock run.fifo
  while kill -0 "$tee_pid" 2> /dev/null; do
    if kill -0 "$head_pid" 2> /dev/null && kill -0 "$watch_pid" 2> /dev/null; then
      wait "$tee_pid"
    else
      kill -0 "$head_pid" 2> /dev/null || cb_output_unblock file.fifo
      kill -0 "$watch_pid" 2> /dev/null || cb_output_unblock tee.fifo
      sleep 0.05
    fi
  done
  cb_output_unblock file.fifo tee.fifo
  for pid in "$tee_pid" "$head_pid" "$watch_pid"; do
    while kill -0 "$pid" 2> /dev/null; do wait "$pid"; done
  done
  return "$rc"
}

# cb_output_unblock NAME...: each FIFO $tmpdir/NAME opened read-write and closed at once
cb_output_unblock() {
  local f fd
  for f in "$@"; do
    exec {fd}<> "$tmpdir/$f" && exec {fd}>&-
  done
}

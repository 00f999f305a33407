# launcher/knobs.sh: every CB_* variable in collbench-run's environment must be one that
# something reads (sourced; functions only). collbench-run forwards CB_* variables to every rank
# (mpirun -x); a misspelt knob (CB_SM=8 for CB_SMS, CB_MAXBLOCKS for CB_MAX_BLOCKS) would be
# forwarded and silently ignored, and the run would measure something else than asked.
#
# The known names are read, not listed a second time: every CB_ name that occurs in the collbench
# binary (its knob readers name their variables in string literals: collectives/knobs.c,
# collectives/allreduce_plan.c, base/fault.c, collectives/mpi_world.c), and every $CB_ variable
# the scripts around it read (collbench-run, launcher/*.sh, collbench-vnode, tests/run).
#
#   cb_knobs_check BINARY   0, or 1 with one line on stderr naming the first unknown variable
#                           and the known name nearest to it (edit distance)
cb_knobs_known() {
  local here
  here=$(dirname -- "${BASH_SOURCE[0]}")
  {
    grep -aoE 'CB_[A-Z0-9_]*[A-Z0-9]' -- "$1" 2> /dev/null
    grep -ohE '[$][{]?CB_[A-Z0-9_]*[A-Z0-9]' -- "$here/collbench-run" "$here/collbench-vnode" "$here"/*.sh \
      "$here/../tests/run" 2> /dev/null | tr -d '${'
  } | sort -u
}

cb_knobs_check() {
  local known v
  local -a unknown=()
  known=$(cb_knobs_known "$1")
  for v in $(compgen -e); do
    [[ "$v" == CB_* ]] || continue
    grep -qxF -- "$v" <<< "$known" || unknown+=("$v")
  done
  [ ${#unknown[@]} -gt 0 ] || return 0
  local near
  near=$(awk -v w="${unknown[0]}" '
    function dist(a, b,   i, j, la, lb, d, c) {
      la = length(a); lb = length(b)
      for (i = 0; i <= la; i++) d[i, 0] = i
      for (j = 0; j <= lb; j++) d[0, j] = j
      for (i = 1; i <= la; i++)
        for (j = 1; j <= lb; j++) {
          c = d[i - 1, j - 1] + (substr(a, i, 1) != substr(b, j, 1))
          if (d[i - 1, j] + 1 < c) c = d[i - 1, j] + 1
          if (d[i, j - 1] + 1 < c) c = d[i, j - 1] + 1
          d[i, j] = c
        }
      return d[la, lb]
    }
    { k = dist(w, $0); if (best == "" || k < bestk) { best = $0; bestk = k } }
    END { print best }' <<< "$known")
  echo "collbench-run: ${unknown[0]} is not a variable collbench reads (it would be passed to every rank and ignored)${near:+; did you mean $near?} Unset it, or see collectives/knobs.h for the knobs" >&2
  return 1
}

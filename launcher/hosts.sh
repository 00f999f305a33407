# launcher/hosts.sh: the checks every host list of collbench-run gets, whether the user gave it
# (--hosts) or Slurm did (the allocation's node list, launcher/slurm.sh) (sourced; functions only).
#
#   cb_hosts_check WHAT LIST   0, or 1 with one line on stderr ("collbench-run: WHAT: ...") when
#                              LIST (comma-separated) is not a list of distinct host names
# A host name is letters, digits, '-', '_' and '.', starts with a letter or digit (a leading '-'
# would reach mpirun's -H as an option) and has at most 253 characters; ':' (mpirun's slot
# count), '=', spaces and empty items are refused. Values are shown by cb_quote (newfile.sh). Two names are the same host when they differ only in case
# or in a trailing dot (DNS compares them so): `a,A` or `a,a.` would put twice the ranks on one
# machine. At most 1024 hosts.
. "$(dirname -- "${BASH_SOURCE[0]}")/newfile.sh" # what this file uses, when sourced alone
cb_hosts_check() {
  local what=$1 list=$2 name key seen=" " n=0
  local -a names
  if ! [[ "$list" =~ ^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$ ]]; then
    echo "collbench-run: $what: $(cb_quote "$list") is not a comma-separated list of host names (letters, digits, '-', '_' and '.'; no empty items, spaces, ':' or '=')" >&2
    return 1
  fi
  IFS=, read -r -a names <<< "$list"
  for name in "${names[@]}"; do
    n=$((n + 1))
    if [ "$n" -gt 1024 ]; then
      echo "collbench-run: $what: more than 1024 hosts" >&2
      return 1
    fi
    if ! [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$ ]]; then
      echo "collbench-run: $what: $(cb_quote "$name") is not a host name (it must start with a letter or digit: a leading '-' or '.' reads as an option; at most 253 characters)" >&2
      return 1
    fi
    key=${name%.}
    key=${key,,}
    if [[ "$seen" == *" $key "* ]]; then
      echo "collbench-run: $what: '$name' is named more than once (host names compare without case and trailing dot)" >&2
      return 1
    fi
    seen+="$key "
  done
}

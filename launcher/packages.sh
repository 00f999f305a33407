# launcher/packages.sh: the one package step of collbench, sourced by tests/run and
# launcher/collbench-run (list: launcher/packages.txt). Functions only; nothing runs on source.
#
#   cb_pkg_names TAG          names of the packages carrying TAG (build, test, charts)
#   cb_pkg_missing NAME...    the missing ones, one per line (dpkg-query; without dpkg, the
#                             PROBE column: a command on PATH or a pkg-config module)
#   cb_pkg_install NAME...    root with apt-get only: apt-get update with a short limit, then
#                             install. Returns 0 installed; 10 not root or no apt-get (nothing
#                             tried); 11 no package registry reachable (update failed or timed
#                             out: machines without internet, like many GPU nodes); 12 install
#                             failed. Progress goes to stderr; $CB_PKG_LOG keeps apt's output:
#                             a new file (mktemp, never a name someone could plant a symlink
#                             at) removed when the install succeeded, kept and named otherwise.
#   cb_pkg_hint NAME...       the exact command a non-root user runs to install them
# CB_PKG_APT_OPTS: extra apt-get options for both calls (the CPU test points apt at an
# unreachable source with its own state folders to exercise the "no registry" path).
CB_PKG_LIST=${CB_PKG_LIST:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/packages.txt}
CB_PKG_UPDATE_TIMEOUT=${CB_PKG_UPDATE_TIMEOUT:-25}
CB_PKG_LOG=""

cb_pkg_names() {
  awk -v tag="$1" '!/^#/ && NF >= 2 { n = split($2, t, ","); for (i = 1; i <= n; i++) if (t[i] == tag) print $1 }' "$CB_PKG_LIST"
}

cb_pkg_missing() {
  local p probe
  for p in "$@"; do
    if command -v dpkg-query >/dev/null 2>&1; then
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
      continue
    fi
    probe=$(awk -v n="$p" '!/^#/ && $1 == n { print $3 }' "$CB_PKG_LIST")
    case $probe in
      ""|-) ;;
      pkgconfig:*) pkg-config --exists "${probe#pkgconfig:}" 2>/dev/null || echo "$p" ;;
      *) command -v "$probe" >/dev/null 2>&1 || echo "$p" ;;
    esac
  done
}

cb_pkg_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1 || return 10
  export DEBIAN_FRONTEND=noninteractive
  # A machine without a route to the registry fails here within the limit instead of hanging
  # in DNS or TCP retries; apt reports unreachable sources as "Err:" / "Failed to fetch" lines
  # (and may still exit 0), so those count as unreachable too.
  local extra log
  read -r -a extra <<< "${CB_PKG_APT_OPTS:-}"
  log=$(mktemp "${TMPDIR:-/tmp}/collbench-packages.XXXXXX") || return 12
  CB_PKG_LOG=$log # named to the caller when the install fails
  if ! timeout "$CB_PKG_UPDATE_TIMEOUT" apt-get "${extra[@]}" update -q -o Acquire::Retries=0 -o Acquire::http::Timeout=10 \
      -o Acquire::https::Timeout=10 > "$log" 2>&1 ||
     grep -Eq '^(Err:|W: Failed to fetch|E: Failed to fetch)' "$log"; then
    return 11
  fi
  apt-get "${extra[@]}" install -y -q --no-install-recommends "$@" >> "$log" 2>&1 || return 12
  rm -f -- "$log"
  return 0
}

cb_pkg_hint() {
  if command -v apt-get >/dev/null 2>&1; then
    echo "sudo apt-get install $*"
  else
    echo "install the equivalents of $* with your system's package manager"
  fi
}

#!/usr/bin/env bash
# CPU test of launcher/packages.sh's apt log (issue 32, N1): it once went to the predictable
# ${TMPDIR:-/tmp}/collbench-packages.$$.log, written with ">" as root, so a symlink planted at
# that name had its target overwritten, and the logs were never removed. Now: a new file
# (mktemp) that a planted symlink cannot be, kept and named after a failure, removed after a
# successful install. As root with apt (else skipped): apt is pointed at its own state folders
# and either an unroutable source (TEST-NET-1: "no registry", 11) or a local one of one dummy
# package (success: installing bash, already installed, changes nothing).
set -u
here=$(cd "$(dirname "$0")" && pwd)
pkgs="${1:-$here/../../launcher/packages.sh}"
if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null || ! command -v dpkg-query > /dev/null; then
  echo "skip: needs root, apt-get and dpkg"
  exit 0
fi
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts" "$tmp/repo"
# one stanza, gzip'd and asked for first (apt tries the compressed forms before the plain one
# and reports each missing one as "Err:", which reads as unreachable)
printf 'Package: cb-dummy\nVersion: 1\nArchitecture: all\nFilename: ./cb-dummy.deb\nSize: 1\nDescription: none\n' |
  gzip > "$tmp/repo/Packages.gz"
echo "precious" > "$tmp/victim"
apt_opts() { # apt_opts SOURCE-LINE
  echo "$1" > "$tmp/sources.list"
  echo "-o Dir::Etc::sourcelist=$tmp/sources.list -o Dir::Etc::sourceparts=$tmp/parts -o Dir::State::Lists=$tmp/lists" \
       "-o Dir::Cache=$tmp/cache -o Acquire::CompressionTypes::Order::=gz"
}

# 1. no registry (11): a symlink at the old name is untouched, the log kept, a regular file
opts=$(apt_opts "deb http://192.0.2.1/debian bookworm main")
out=$(TMPDIR="$tmp/t" CB_PKG_APT_OPTS="$opts" CB_PKG_UPDATE_TIMEOUT=8 bash -c '
  ln -s "'"$tmp"'/victim" "$TMPDIR/collbench-packages.$$.log"
  . "'"$pkgs"'"; cb_pkg_install cb-no-such-package; echo "rc=$? log=$CB_PKG_LOG"')
check "no registry: 11 ($out)" '[[ "$out" == rc=11* ]]'
check "a symlink planted at the old log name is not written through" '[ "$(cat "$tmp/victim")" = precious ]'
log=${out#*log=}
check "the log is a new regular file in TMPDIR ($log)" '[ -f "$log" ] && [ ! -L "$log" ] && [ "$(dirname "$log")" = "$tmp/t" ]'
check "the log keeps apt's output" 'grep -q 192.0.2.1 "$log"'
rm -f "$tmp"/t/*

# 2. success: the log is removed
opts=$(apt_opts "deb [trusted=yes] file:$tmp/repo ./")
out=$(TMPDIR="$tmp/t" CB_PKG_APT_OPTS="$opts" bash -c '. "'"$pkgs"'"; cb_pkg_install bash; echo "rc=$?"')
check "an installed package installs (0: $out)" '[ "$out" = rc=0 ]'
check "no log left after a successful install ($(ls "$tmp/t"))" '[ -z "$(ls -A "$tmp/t")" ]'
exit $fail

#!/usr/bin/env bash
# CPU test of launcher/packages.sh, the package step tests/run and collbench-run share: the
# lists by tag, the missing-package probe, a non-root user gets the exact command and nothing is
# tried (10), and a machine whose package registry cannot be reached is told so within the
# short limit (11) instead of hanging (as root: apt pointed at an unroutable documentation
# address, TEST-NET-1, with its own state folders so the system's package lists stay untouched).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../launcher/packages.sh"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

check "test list has every build package (make and g++ too: cmake only recommends them), gnuplot, numpy and Slurm" \
  '[ "$(cb_pkg_names test | tr "\n" " ")" = "make g++ cmake pkg-config openmpi-bin libopenmpi-dev libhwloc-dev hwloc-nox gnuplot-nox fonts-dejavu-core python3 python3-numpy slurm-wlm munge libpmix2 " ]'
check "fuzz list: the fuzzing compiler and its runtime" '[ "$(cb_pkg_names fuzz | tr "\n" " ")" = "clang libclang-rt-dev " ]'
check "charts list" '[ "$(cb_pkg_names charts | tr "\n" " ")" = "gnuplot-nox fonts-dejavu-core python3 " ]'
check "no package carries an unknown tag" '[ -z "$(cb_pkg_names nosuchtag)" ]'
check "a missing package is reported" '[ "$(cb_pkg_missing python3 cb-no-such-package)" = cb-no-such-package ]'
check "hint names the exact command" '[ "$(cb_pkg_hint gnuplot-nox fonts-dejavu-core)" = "sudo apt-get install gnuplot-nox fonts-dejavu-core" ] || ! command -v apt-get >/dev/null'

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  rc=$(setpriv --reuid=65534 --regid=65534 --clear-groups bash -c ". '$here/../../launcher/packages.sh'; cb_pkg_install gnuplot-nox; echo \$?")
else
  cb_pkg_install gnuplot-nox; rc=$?
fi
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
  check "non-root: nothing tried (10)" '[ "$rc" = 10 ]'
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
  tmp=$(mktemp -d)
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts"
  echo "deb http://192.0.2.1/debian bookworm main" > "$tmp/sources.list"
  export CB_PKG_APT_OPTS="-o Dir::Etc::sourcelist=$tmp/sources.list -o Dir::Etc::sourceparts=$tmp/parts -o Dir::State::Lists=$tmp/lists -o Dir::Cache=$tmp/cache"
  export CB_PKG_UPDATE_TIMEOUT=8
  t0=$SECONDS
  cb_pkg_install cb-no-such-package; rc=$?
  took=$((SECONDS - t0))
  check "unreachable registry: 11 (got $rc)" '[ "$rc" = 11 ]'
  check "unreachable registry: told within the limit + 2 s (took $took s)" '[ "$took" -le 10 ]'
  rm -rf "$tmp"
else
  echo "skip the unreachable-registry case (needs root, apt-get and dpkg)"
fi
exit $fail

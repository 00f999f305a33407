#!/usr/bin/env bash
# tests/slurm/slurm-down.sh DIR: stops the cluster tests/slurm/slurm-up.sh started in DIR, by the
# pids in its pid files only (slurmd, slurmctld, munged: never by name, another cluster may be
# running). Waits up to 5 s for each to end (a zombie waiting to be reaped counts as ended), then
# kills what is left. Always exits 0 when nothing of DIR's cluster runs any more, 1 otherwise.
set -u
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
S=$1
rm -f "$S/up"

alive() { # a pid that runs and is not a zombie
  local st
  st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$1/stat" 2> /dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
# the pid file's process, if it is the daemon named (a stale file may name a reused pid)
daemon_pid() {
  local pid
  pid=$(cat "$1" 2> /dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  grep -qx "$2" "/proc/$pid/comm" 2> /dev/null && echo "$pid"
}

left=0
for d in slurmd:slurmd.pid slurmctld:slurmctld.pid munged:munge/munged.pid; do
  name=${d%%:*}
  pid=$(daemon_pid "$S/${d#*:}" "$name") || continue
  kill -TERM "$pid" 2> /dev/null
  for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
  if alive "$pid"; then
    kill -KILL "$pid" 2> /dev/null
    sleep 0.2
    alive "$pid" && { echo "slurm-down: $name (pid $pid) is still running" >&2; left=1; }
  fi
  rm -f "$S/${d#*:}"
done
exit "$left"

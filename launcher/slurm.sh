# launcher/slurm.sh: the Slurm part of collbench-run (sourced; defines functions only).
#
# Inside an allocation (SLURM_JOB_ID set) collbench-run starts its ranks with
#   srun --mpi=pmix --nodes=N --ntasks-per-node=G --whole --cpu-bind=mask_cpu:M0,M1,... collbench ...
# one task per GPU, task r of every node bound to the cores of GPU r (the masks come from
# collbench-topo --cpu-masks, the plan the rankfile is made from for mpirun). Where this srun
# has no PMIx plugin (srun --mpi=list does not list pmix), mpirun starts them inside the
# allocation instead, on the allocation's nodes; collbench-run says which it used. --whole gives
# the step every CPU the job holds on its nodes (a step gets one CPU per task by default, and a
# mask outside the step's CPUs is refused). Before any results folder exists, the allocation's
# node list gets the checks of --hosts (launcher/hosts.sh), its length must be the job's node
# count, and the job must hold a task (and a CPU) per rank of the plan.
# `collbench-run --sbatch FILE --nodes N` writes a batch script (cb_slurm_write_sbatch) that
# runs the same collbench-run command, its paths made absolute, in an allocation of N nodes of
# this node type (--partition, --account, --time become #SBATCH lines); it is written only for a
# plan collbench-topo accepts.
# Tests: tests/slurm (a real one-node slurmctld + slurmd).
. "$(dirname -- "${BASH_SOURCE[0]}")/newfile.sh" # what this file uses, when sourced alone
. "$(dirname -- "${BASH_SOURCE[0]}")/hosts.sh" # what this file uses, when sourced alone

# 0 inside a Slurm allocation.
cb_slurm_in_job() { [ -n "${SLURM_JOB_ID:-}" ]; }

# Sets cb_launcher to srun or mpirun and says which, and why, on stdout.
cb_slurm_choose_launcher() {
  local plugins
  plugins=$(timeout 30 srun --mpi=list 2>&1 | tr -s ' \t\n' ' ')
  if printf '%s\n' "$plugins" | grep -qw pmix; then
    cb_launcher=srun
    echo "collbench-run: Slurm job $SLURM_JOB_ID: launching with srun --mpi=pmix, one task per GPU bound to its cores"
  else
    cb_launcher=mpirun
    echo "collbench-run: Slurm job $SLURM_JOB_ID: srun has no PMIx plugin (srun --mpi=list: ${plugins:-no answer}): launching with mpirun inside the allocation"
  fi
}

# The allocation's node count.
cb_slurm_nnodes() { echo "${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}"; }

# The allocation's host names into cb_slurm_list (comma-separated), checked as --hosts is and
# against the job's node count; 1 with one line on stderr when they cannot be read or are wrong.
cb_slurm_hosts() {
  local list n count
  cb_slurm_list=""
  n=$(cb_slurm_nnodes)
  if ! [[ "$n" =~ ^[1-9][0-9]{0,3}$ ]]; then
    echo "collbench-run: Slurm job $SLURM_JOB_ID: the node count $(cb_quote "${n:0:40}") (SLURM_JOB_NUM_NODES) is not a number up to 9999" >&2
    return 1
  fi
  if [ -z "${SLURM_JOB_NODELIST:-}" ]; then
    echo "collbench-run: Slurm job $SLURM_JOB_ID: SLURM_JOB_NODELIST is not set: cannot tell the allocation's nodes" >&2
    return 1
  fi
  # a leading '-' would reach scontrol as an option: refused as a host name is
  [[ "$SLURM_JOB_NODELIST" =~ ^[A-Za-z0-9] ]] ||
    { cb_hosts_check "Slurm node list" "$SLURM_JOB_NODELIST"; return 1; }
  list=$(timeout 20 scontrol show hostnames "$SLURM_JOB_NODELIST" 2> "$tmpdir/scontrol.err" < /dev/null)
  if [ $? != 0 ] || [ -z "$list" ]; then
    echo "collbench-run: Slurm job $SLURM_JOB_ID: cannot read its node list $(cb_quote "${SLURM_JOB_NODELIST:0:80}") (scontrol show hostnames: $(tail -n 1 "$tmpdir/scontrol.err" | cut -c1-160))" >&2
    return 1
  fi
  list=$(printf '%s\n' "$list" | paste -sd, -)
  cb_hosts_check "Slurm node list $(cb_quote "${SLURM_JOB_NODELIST:0:80}")" "$list" || return 1
  count=$(tr ',' '\n' <<< "$list" | grep -c .)
  if [ "$count" != "$n" ]; then
    echo "collbench-run: Slurm job $SLURM_JOB_ID: its node list $(cb_quote "${SLURM_JOB_NODELIST:0:80}") names $count node(s) but the job has $n (SLURM_JOB_NUM_NODES)" >&2
    return 1
  fi
  cb_slurm_list=$list
}

# The job's CPUs on its smallest node, from SLURM_JOB_CPUS_PER_NODE ("36(x2),24"), or "" unknown.
cb_slurm_min_cpus() {
  local spec=${SLURM_JOB_CPUS_PER_NODE:-} part min=""
  [[ "$spec" =~ ^[0-9]+(\(x[0-9]+\))?(,[0-9]+(\(x[0-9]+\))?)*$ ]] || return 0
  for part in ${spec//,/ }; do
    part=${part%%(*}
    [ -n "$min" ] && [ "$min" -le "$part" ] || min=$part
  done
  echo "$min"
}

# cb_slurm_check_tasks NP PER_NODE: the allocation must hold NP tasks (SLURM_NTASKS, where the
# job was given a task count) and PER_NODE CPUs on each node; 1 with one line on stderr if not.
cb_slurm_check_tasks() {
  local np=$1 per=$2 ntasks=${SLURM_NTASKS:-${SLURM_NPROCS:-}} cpus
  if [[ "$ntasks" =~ ^[0-9]{1,6}$ ]] && [ "$ntasks" -lt "$np" ]; then
    echo "collbench-run: Slurm job $SLURM_JOB_ID holds $ntasks task(s) (SLURM_NTASKS) but the run needs $np, one per GPU ($per per node): allocate them (salloc/sbatch --ntasks-per-node=$per), or give --gpus $ntasks" >&2
    return 1
  fi
  cpus=$(cb_slurm_min_cpus)
  if [ -n "$cpus" ] && [ "$cpus" -lt "$per" ]; then
    echo "collbench-run: Slurm job $SLURM_JOB_ID holds $cpus CPU(s) on a node (SLURM_JOB_CPUS_PER_NODE=${SLURM_JOB_CPUS_PER_NODE}) but the run starts $per task(s) per node, one per GPU, each needing a CPU" >&2
    return 1
  fi
}

# cb_slurm_srun_cmd NNODES PER_NODE MASKS: sets the array cb_srun to the step's launch prefix.
# MASKS empty: --cpu-bind=none (each rank then binds itself near its GPU, as collbench does).
cb_slurm_srun_cmd() {
  local bind="--cpu-bind=mask_cpu:$3"
  [ -n "$3" ] || bind=--cpu-bind=none
  cb_srun=(srun --mpi=pmix "--nodes=$1" "--ntasks=$(($1 * $2))" "--ntasks-per-node=$2" --whole "$bind"
           --kill-on-bad-exit=1)
}

# cb_slurm_masks TOPO_TOOL PER_NODE [TOPO ARGS...]: the mask list on stdout (or exit non-zero
# with collbench-topo's message on stderr).
cb_slurm_masks() {
  local tool=$1 per=$2
  shift 2
  "$tool" "$@" --ranks "$per" --cpu-masks
}

# cb_slurm_write_sbatch FILE NODES PER_NODE MASKS COMMAND...: a batch script for NODES nodes of
# PER_NODE GPUs each that runs COMMAND (collbench-run with the same options) in the allocation;
# collbench-run's sbatch_partition, sbatch_account, sbatch_time (when set) become #SBATCH lines
# and sbatch_results (when set) the folder the script says the results go to. Written as a new
# file (launcher/newfile.sh; an existing regular file is replaced, nothing else).
cb_slurm_write_sbatch() {
  local file=$1 nodes=$2 per=$3 masks=$4
  shift 4
  {
    echo "#!/usr/bin/env bash"
    echo "# collbench batch script, written by collbench-run --sbatch on $(date -u +%Y-%m-%dT%H:%M:%SZ)."
    echo "# Submit with: sbatch $(printf '%q' "$file")"
    echo "# Plan: $nodes node(s) x $per rank(s), one per GPU. Inside the allocation collbench-run runs"
    echo "#   srun --mpi=pmix --nodes=$nodes --ntasks-per-node=$per --whole --cpu-bind=mask_cpu:$masks"
    echo "# with the masks it computes on the node (these are this node type's: collbench-topo --cpu-masks)."
    echo "# --gpus-per-node, not --gpus-per-task: every rank must see all of its node's GPUs for CUDA IPC."
    [ -z "${sbatch_results:-}" ] ||
      echo "# Results: one folder per family under $sbatch_results; this job's output in collbench-<job id>.out in the folder sbatch was run from."
    echo "#SBATCH --job-name=collbench"
    echo "#SBATCH --nodes=$nodes"
    echo "#SBATCH --ntasks-per-node=$per"
    echo "#SBATCH --gpus-per-node=$per"
    echo "#SBATCH --exclusive"
    echo "#SBATCH --output=collbench-%j.out"
    [ -z "${sbatch_partition:-}" ] || echo "#SBATCH --partition=$sbatch_partition"
    [ -z "${sbatch_account:-}" ] || echo "#SBATCH --account=$sbatch_account"
    [ -z "${sbatch_time:-}" ] || echo "#SBATCH --time=$sbatch_time"
    echo "set -u"
    [ -z "${sbatch_results:-}" ] ||
      echo "echo \"collbench batch job \${SLURM_JOB_ID:-}: results go to\" $(printf '%q' "$sbatch_results")"
    printf 'exec'
    printf ' %q' "$@"
    echo
  } | cb_newfile --replace --mode "$(printf '%o' $((0777 & ~$(umask))))" "$file"
}

# cb_slurm_check_value OPTION VALUE REGEX WHAT: one line on stderr and 1 unless VALUE (at most
# 200 characters) matches REGEX.
cb_slurm_check_value() {
  [ ${#2} -le 200 ] && [[ "$2" =~ $3 ]] && return 0
  if [ ${#2} -gt 200 ]; then
    echo "collbench-run: $1: a value of ${#2} characters is not $4" >&2
  else
    echo "collbench-run: $1: $(cb_quote "$2") is not $4" >&2
  fi
  return 1
}

# collbench-run's option checks for --sbatch, --nodes, --partition, --account, --time (its
# variables sbatch, nodes, sbatch_partition, sbatch_account, sbatch_time, hosts, vnodes); says
# what is wrong on stderr and returns 1 (collbench-run exits 2).
cb_slurm_check_args() {
  local bad=""
  if [ -n "$sbatch" ] && [ -z "$nodes" ]; then
    bad="--sbatch needs --nodes N (the node count the batch script asks Slurm for)"
  elif [ -n "$nodes" ] && [ -z "$sbatch" ]; then
    bad="--nodes is the node count of an --sbatch script; inside an allocation the nodes are Slurm's"
  elif [ -z "$sbatch" ] && [ -n "$sbatch_partition$sbatch_account$sbatch_time" ]; then
    bad="--partition, --account and --time go into an --sbatch script; inside an allocation they are Slurm's"
  elif [ -n "$nodes" ] && ! { [[ "$nodes" =~ ^[1-9][0-9]{0,3}$ ]] && [ "$nodes" -le 1024 ]; }; then
    bad="--nodes: '$nodes' is not a positive number up to 1024"
  elif [ -n "$sbatch" ] && { [ -n "$hosts" ] || [ -n "$vnodes" ]; }; then
    bad="--sbatch: the batch script runs on the nodes Slurm allocates; it does not combine with --hosts or --vnodes"
  elif [ -n "$sbatch" ] && ! cb_newfile_target "$sbatch" 1; then
    bad="--sbatch: cannot write $(cb_quote "$sbatch"): $cb_newfile_why"
  elif [ -n "$sbatch" ] && [ ! -w "$(dirname -- "$sbatch")" ]; then
    bad="--sbatch: cannot write into $(cb_quote "$(dirname -- "$sbatch")")"
  fi
  if [ -n "$bad" ]; then
    echo "collbench-run: $bad" >&2
    return 1
  fi
  [ -z "$sbatch_partition" ] || cb_slurm_check_value --partition "$sbatch_partition" \
    '^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$' "a partition name (letters, digits, '_', '.', '-'; a comma-separated list)" || return 1
  [ -z "$sbatch_account" ] || cb_slurm_check_value --account "$sbatch_account" \
    '^[A-Za-z0-9_.-]+$' "an account name (letters, digits, '_', '.', '-')" || return 1
  [ -z "$sbatch_time" ] || cb_slurm_check_value --time "$sbatch_time" \
    '^([0-9]{1,7}(:[0-9]{1,2}){0,2}|[0-9]{1,5}-[0-9]{1,2}(:[0-9]{1,2}){0,2}|UNLIMITED|INFINITE)$' \
    "a Slurm time limit (MINUTES, HH:MM:SS, D-HH, D-HH:MM:SS or UNLIMITED)" || return 1
}

# cb_slurm_sbatch FILE NODES PER_NODE COMMAND...: writes the batch script that runs COMMAND
# (collbench-run's topo_tool and topo_args give the masks of this node type) and says so. A node
# type collbench-topo rejects (a --topo file it cannot read, more ranks than its GPUs) stops here
# (exit 2); only a live machine hwloc cannot plan (a login node without GPUs) is accepted, the
# tasks then binding themselves.
cb_slurm_sbatch() {
  local file=$1 n=$2 per=$3 masks rc
  shift 3
  masks=$(cb_slurm_masks "$topo_tool" "$per" "${topo_args[@]}" 2> "$tmpdir/masks.err")
  rc=$?
  if [ "$rc" != 0 ]; then
    if [ -n "$topo" ] || [ "$rc" != 5 ]; then
      echo "collbench-run: --sbatch: collbench-topo rejects the plan of $per rank(s) per node: $(tail -n 1 "$tmpdir/masks.err" | sed 's/^collbench-topo: //'); no script written" >&2
      return 2
    fi
    masks="(none: $(tail -n 1 "$tmpdir/masks.err" | sed 's/^collbench-topo: //'); the tasks then bind themselves)"
  fi
  cb_slurm_write_sbatch "$file" "$n" "$per" "$masks" "$@" || return 3
  echo "collbench-run: wrote $file: $n node(s) x $per GPU(s); submit it with: sbatch $(printf '%q' "$file")"
}

# cb_slurm_step DIR NNODES PER_NODE: the srun launch prefix for one run (cb_srun), the plan in
# DIR/placement.txt (the table, then the masks srun gets). Without masks (this node's hwloc sees
# no GPU) the tasks are left unbound and bind themselves, as without a rankfile.
cb_slurm_step() {
  local dir=$1 masks
  {
    echo "Slurm job ${SLURM_JOB_ID:-?}: srun --mpi=pmix, $2 node(s) x $3 task(s)"
    "$topo_tool" "${topo_args[@]}" --ranks "$3" 2>&1
  } > "$tmpdir/placement.slurm"
  if masks=$(cb_slurm_masks "$topo_tool" "$3" "${topo_args[@]}" 2>> "$tmpdir/placement.slurm"); then
    echo "srun --cpu-bind=mask_cpu:$masks" >> "$tmpdir/placement.slurm"
    cb_slurm_srun_cmd "$2" "$3" "$masks"
  else
    echo "collbench-run: no CPU masks ($(tail -n 1 "$tmpdir/placement.slurm")); tasks bind themselves" >&2
    cb_slurm_srun_cmd "$2" "$3" ""
  fi
  cb_newfile "$dir/placement.txt" < "$tmpdir/placement.slurm"
}

# launcher/slurm.sh: the Slurm part of collbench-run (sourced; defines functions only).
#
# Inside an allocation (SLURM_JOB_ID set) collbench-run starts its ranks with
#   srun --mpi=pmix --nodes=N --ntasks-per-node=G --whole --cpu-bind=mask_cpu:M0,M1,... collbench ...
# one task per GPU, task r of every node bound to the cores of GPU r (the masks come from
# collbench-topo --cpu-masks, the plan the rankfile is made from for mpirun). Where this srun
# has no PMIx plugin (srun --mpi=list does not list pmix), mpirun starts them inside the
# allocation instead, on the allocation's nodes; collbench-run says which it used. --whole gives
# the step every CPU the job holds on its nodes (a step gets one CPU per task by default, and a
# mask outside the step's CPUs is refused). `collbench-run --sbatch FILE --nodes N` writes a
# batch script (cb_slurm_write_sbatch) that runs the same collbench-run command in an
# allocation of N nodes of this node type.
# Tests: tests/slurm (a real one-node slurmctld + slurmd).

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

# The allocation's node count and host names (comma-separated), from Slurm's own variables.
cb_slurm_nnodes() { echo "${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}"; }
cb_slurm_hosts() {
  local list
  list=$(scontrol show hostnames "${SLURM_JOB_NODELIST:-}" 2> /dev/null | paste -sd, -)
  echo "${list:-$(hostname)}"
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
# PER_NODE GPUs each that runs COMMAND (collbench-run with the same options) in the allocation.
# Written to FILE.tmp and renamed, so an existing file is never left half-written.
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
    echo "#SBATCH --job-name=collbench"
    echo "#SBATCH --nodes=$nodes"
    echo "#SBATCH --ntasks-per-node=$per"
    echo "#SBATCH --gpus-per-node=$per"
    echo "#SBATCH --exclusive"
    echo "#SBATCH --output=collbench-%j.out"
    echo "set -u"
    printf 'exec'
    printf ' %q' "$@"
    echo
  } > "$file.tmp" && chmod +x "$file.tmp" && mv -f "$file.tmp" "$file"
}

# collbench-run's option checks for --sbatch/--nodes (its variables sbatch, nodes, hosts,
# vnodes); says what is wrong on stderr and returns 1 (collbench-run exits 2).
cb_slurm_check_args() {
  local bad=""
  if [ -n "$sbatch" ] && [ -z "$nodes" ]; then
    bad="--sbatch needs --nodes N (the node count the batch script asks Slurm for)"
  elif [ -n "$nodes" ] && [ -z "$sbatch" ]; then
    bad="--nodes is the node count of an --sbatch script; inside an allocation the nodes are Slurm's"
  elif [ -n "$nodes" ] && ! { [[ "$nodes" =~ ^[1-9][0-9]{0,3}$ ]] && [ "$nodes" -le 1024 ]; }; then
    bad="--nodes: '$nodes' is not a positive number up to 1024"
  elif [ -n "$sbatch" ] && { [ -n "$hosts" ] || [ -n "$vnodes" ]; }; then
    bad="--sbatch: the batch script runs on the nodes Slurm allocates; it does not combine with --hosts or --vnodes"
  elif [ -n "$sbatch" ] && [ -d "$sbatch" ]; then
    bad="--sbatch: '$sbatch' is a folder"
  elif [ -n "$sbatch" ] && [ ! -w "$(dirname -- "$sbatch")" ]; then
    bad="--sbatch: cannot write into '$(dirname -- "$sbatch")'"
  fi
  [ -z "$bad" ] && return 0
  echo "collbench-run: $bad" >&2
  return 1
}

# The command collbench-run was given, without --sbatch FILE and --nodes N, into cb_plan_args.
cb_slurm_strip_args() {
  cb_plan_args=()
  local skip=0 a
  for a in "${cb_args[@]}"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$a" in
      --sbatch|--nodes) skip=1 ;;
      *) cb_plan_args+=("$a") ;;
    esac
  done
}

# cb_slurm_sbatch FILE NODES PER_NODE COLLBENCH_RUN: writes the batch script (collbench-run's
# topo_tool and topo_args give the masks of this node type) and says so.
cb_slurm_sbatch() {
  local file=$1 n=$2 per=$3 run=$4 masks
  masks=$(cb_slurm_masks "$topo_tool" "$per" "${topo_args[@]}" 2> "$tmpdir/masks.err") ||
    masks="(none: $(tail -n 1 "$tmpdir/masks.err"); the tasks then bind themselves)"
  cb_slurm_strip_args
  cb_slurm_write_sbatch "$file" "$n" "$per" "$masks" "$run" "${cb_plan_args[@]}" ||
    { echo "collbench-run: --sbatch: cannot write '$file'" >&2; return 3; }
  echo "collbench-run: wrote $file: $n node(s) x $per GPU(s); submit it with: sbatch $file"
}

# cb_slurm_step DIR NNODES PER_NODE: the srun launch prefix for one run (cb_srun), the plan in
# DIR/placement.txt (the table, then the masks srun gets). Without masks (this node's hwloc sees
# no GPU) the tasks are left unbound and bind themselves, as without a rankfile.
cb_slurm_step() {
  local dir=$1 masks
  {
    echo "Slurm job ${SLURM_JOB_ID:-?}: srun --mpi=pmix, $2 node(s) x $3 task(s)"
    "$topo_tool" "${topo_args[@]}" --ranks "$3" 2>&1
  } > "$dir/placement.txt"
  if masks=$(cb_slurm_masks "$topo_tool" "$3" "${topo_args[@]}" 2>> "$dir/placement.txt"); then
    echo "srun --cpu-bind=mask_cpu:$masks" >> "$dir/placement.txt"
    cb_slurm_srun_cmd "$2" "$3" "$masks"
  else
    echo "collbench-run: no CPU masks ($(tail -n 1 "$dir/placement.txt")); tasks bind themselves" >&2
    cb_slurm_srun_cmd "$2" "$3" ""
  fi
}

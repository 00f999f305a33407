"""Helpers for the CPU tests that drive launcher/collbench-run past its GPU probe on a machine
without GPUs (test_run_hostile.py, test_run_interrupt.py, test_run_plan.py): a stand-in
nvidia-smi that lists two GPUs, and a build folder whose `cmake --build` is a real CMake project
(empty, so collbench-run's build step runs in a second, or one whose build runs a long real
command, to signal a build in flight) holding the real collbench-topo and either the real
collbench or standin_collbench.py, which is the real collbench outside MPI and streams the rows
of a committed fixture run as an MPI rank (it needs no GPU). Nsight Compute is not installed
here: ncu_passthrough() is an ncu that runs the profiled command unprofiled, for the profile
step's process handling. Processes are found by a marker in their environment (marked)."""
import glob
import os
import signal
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "standin_collbench.py")


def fake_gpus(tmp, nvlink_delay=0):
    """A folder to put first on PATH: nvidia-smi -L lists two GPUs; `nvidia-smi nvlink ...`
    (collbench-run's link query, made after the results folder exists) takes nvlink_delay
    seconds; anything else prints nothing."""
    fake = os.path.join(tmp, "fakebin")
    os.makedirs(fake, exist_ok=True)
    path = os.path.join(fake, "nvidia-smi")
    with open(path, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = -L ] && printf "GPU 0: Fake (UUID: a)\\nGPU 1: Fake (UUID: b)\\n"\n'
                f'[ "$1" = nvlink ] && sleep {nvlink_delay}\nexit 0\n')
    os.chmod(path, 0o755)
    return fake


def ncu_passthrough(tmp):
    """A folder to put first on PATH with an `ncu` that drops its own options and runs the
    profiled command (`ncu --import` prints a line)."""
    fake = os.path.join(tmp, "fakencu")
    os.makedirs(fake, exist_ok=True)
    path = os.path.join(fake, "ncu")
    with open(path, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = --import ] && { echo "no kernels"; exit 0; }\n'
                'while [ $# -gt 0 ]; do\n  case $1 in\n'
                '    --clock-control|--section|-o) shift 2 ;;\n    --nvtx|-f) shift ;;\n    *) exec "$@" ;;\n'
                '  esac\ndone\nexit 2\n')
    os.chmod(path, 0o755)
    return fake


def build_dir(tmp, real_build, standin=False, name="build", build_seconds=0):
    """A configured CMake project with launcher/collbench (the real one, or the stand-in) and
    topologies/collbench-topo (the real one) inside; its build does nothing, or runs
    `sleep build_seconds` (a real make and its child, for a signal during the build)."""
    src, build = os.path.join(tmp, name + "-src"), os.path.join(tmp, name)
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.10)\nproject(collbench_standin NONE)\n")
        if build_seconds:
            f.write(f"add_custom_target(slow ALL COMMAND sleep {build_seconds})\n")
    subprocess.run(["cmake", "-S", src, "-B", build], check=True, capture_output=True, timeout=120)
    for sub, prog in (("launcher", "collbench"), ("topologies", "collbench-topo")):
        os.makedirs(os.path.join(build, sub), exist_ok=True)
        target = STANDIN if standin and prog == "collbench" else os.path.join(real_build, sub, prog)
        os.symlink(target, os.path.join(build, sub, prog))
    return build


def env_with(tmp, **extra):
    env = dict(os.environ, PATH=fake_gpus(tmp) + os.pathsep + os.environ["PATH"],
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(extra)
    return env


def marked(mark):
    """PIDs of the processes (other than this one) whose environment carries mark."""
    pids = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/environ", "rb") as f:
                if mark.encode() in f.read():
                    pids.append(int(d[6:]))
        except OSError:
            pass
    return [p for p in pids if p != os.getpid()]


def describe(pids):
    out = []
    for q in pids:
        try:
            with open(f"/proc/{q}/cmdline", "rb") as f:
                out.append(f"{q}: " + f.read().replace(b"\0", b" ").decode(errors="replace")[:160])
        except OSError:
            pass
    return "; ".join(out)


def end(pids):
    """Ends the processes a test started and left (by pid, each one)."""
    for q in pids:
        try:
            os.kill(q, signal.SIGKILL)
        except OSError:
            pass


def default_signals():
    """preexec_fn: the signal actions a terminal's shell gives a foreground command (a test runner
    started in the background may have SIGINT ignored, which children would inherit)."""
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)

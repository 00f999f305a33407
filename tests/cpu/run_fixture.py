"""Helpers for the CPU tests that drive launcher/collbench-run past its GPU probe on a machine
without GPUs (test_run_hostile.py, test_run_interrupt.py): a stand-in nvidia-smi that lists two
GPUs, and a build folder whose `cmake --build` is a real, empty CMake project (so collbench-run's
build step runs in a second) holding the real collbench-topo and either the real collbench or
standin_collbench.py, which parses its command line with the real collbench and streams the rows
of a committed fixture run instead of measuring (it needs no GPU)."""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
STANDIN = os.path.join(HERE, "standin_collbench.py")


def fake_gpus(tmp):
    """A folder to put first on PATH: nvidia-smi -L lists two GPUs, anything else prints nothing."""
    fake = os.path.join(tmp, "fakebin")
    os.makedirs(fake, exist_ok=True)
    path = os.path.join(fake, "nvidia-smi")
    with open(path, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = -L ] && printf "GPU 0: Fake (UUID: a)\\nGPU 1: Fake (UUID: b)\\n"\nexit 0\n')
    os.chmod(path, 0o755)
    return fake


def build_dir(tmp, real_build, standin=False, name="build"):
    """A configured empty CMake project with launcher/collbench (the real one, or the stand-in)
    and topologies/collbench-topo (the real one) inside."""
    src, build = os.path.join(tmp, name + "-src"), os.path.join(tmp, name)
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.10)\nproject(collbench_standin NONE)\n")
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

/* What collbench checks right after MPI_Init, before any CUDA, NCCL or hwloc work (on a
 * cluster: before the GPUs are touched, not after the queue wait and the setup): every rank was
 * started with the same command line (an MPMD launch with other options would run another plan
 * and hang until the watchdog), and rank 0, the only writer, can create every output it was
 * asked for (--csv, --json with its .partial.jsonl, ringattn's --save folder). */
#ifndef CB_PREFLIGHT_H
#define CB_PREFLIGHT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "args.h"

/* Collective over comm. Returns 0, or CB_EXIT_USAGE on every rank after rank 0 printed one
 * line saying what is wrong ("collbench: ..."). argv is the program's (argv[0] not compared:
 * the binary's path may differ between hosts). */
int cb_preflight(const cb_args_t *a, int argc, char **argv, MPI_Comm comm);

/* The parts, for the tests. The hash of argv[1..argc-1] (each argument with its length, so
 * "a b" and "a" "b" differ). */
uint64_t cb_preflight_args_hash(int argc, char **argv);
/* The output checks on this process's file system: 0, or -1 with why (one line). Each output
 * must be creatable as a new file in its folder (a probe file is made and removed) and its name
 * must not hold a directory, device, FIFO or socket; --save must name a new folder. */
int cb_preflight_outputs(const cb_args_t *a, char *why, size_t n);

#endif

/* nccl-tests' options that collbench takes with nccl-tests' meaning (-G -m -N -z -a -I -J -R)
 * and the one-line answers for those it does not take (args_ncclt.c). Internal to the argument
 * parser (args.c calls it for an option of its own table it does not know). */
#ifndef CB_ARGS_NCCLT_H
#define CB_ARGS_NCCLT_H

#include "args_seen.h"

/* The upper bounds of -G, -m and -N: a run of at most 10^6 launches of each graph, 1024
 * operations per iteration and 1000 passes over the sweep (beyond, a watchdog round would last
 * for hours). */
#define CB_MAX_GRAPH_LAUNCHES 1000000
#define CB_MAX_AGG_ITERS 1024
#define CB_MAX_CYCLES 1000

/* 1 when arg ("-G", "-G10", "--cudagraph", "--cudagraph=10") is one of nccl-tests' options
 * handled here, with *index for cb_ncclt_option and *inline_value the value written into arg
 * (NULL: the next argument). Every one of them takes a value, as in nccl-tests. */
int cb_ncclt_find(const char *arg, const char **inline_value, int *index);

/* Applies option index with val, or refuses it (CB_ARGS_ERROR, one line in p). */
int cb_ncclt_option(cb_argp_t *p, cb_args_t *a, cb_args_seen_t *s, int index, const char *arg, const char *val);

/* Once the whole line is read: the combinations that cannot run (-G with --mode eager, -z 1 with
 * a graph, -R with --algo, -J over another output). */
int cb_args_ncclt_finish(cb_argp_t *p, const cb_args_t *a, const cb_args_seen_t *s);

/* "nccl", "nccl_reg" or "nccl_symm": the NCCL baseline -R r keeps. */
const char *cb_ncclt_register_name(int r);

#endif

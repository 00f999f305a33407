/* collbench-topo's two views of a plan: a table for people and JSON for scripts and tests. */
#ifndef CB_TOPO_PRINT_H
#define CB_TOPO_PRINT_H

#include <stdio.h>

#include "placement.h"

/* The first nranks entries of pl; both return 0 or -1 when writing to out failed. */
int cb_topo_print_table(const cb_placement_t *pl, int nranks, FILE *out);
int cb_topo_print_json(const cb_placement_t *pl, int nranks, FILE *out);

#endif

/* The rank's start-up and shutdown (launcher/world_init.c): MPI node discovery, GPU choice, CPU
 * binding, NCCL communicator and the peer-memory probe fill the cb_world_t that every algorithm
 * receives (collectives/world.h). Declared here, in the launcher, because only the program
 * bootstraps a world; the algorithms below it only read one. */
#ifndef CB_WORLD_INIT_H
#define CB_WORLD_INIT_H

#include "world.h"

struct cb_args;
/* MPI must be initialized; knobs come from cb_knobs_read. Exits the job with CB_EXIT_ENV when
 * the node has no GPU or more ranks than GPUs. */
void cb_world_init(cb_world_t *w, const struct cb_args *args, const cb_knobs_t *knobs);
void cb_world_free(cb_world_t *w);

#endif

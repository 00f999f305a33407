/* Sizes of the signal pads that custom kernels use for cross-GPU flags (kernels/signal.cuh),
 * visible to host C code that allocates them. Pad layout: uint32 flag[slot][block][source rank]. */
#ifndef CB_SIGNAL_H
#define CB_SIGNAL_H

#include "cb_limits.h"

#define CB_SIGNAL_MAX_BLOCKS 512 /* blocks that barrier independently */
#define CB_SIGNAL_SLOTS 4        /* distinct barriers one kernel may use */
#define CB_SIGNAL_PAD_BYTES (CB_SIGNAL_SLOTS * CB_SIGNAL_MAX_BLOCKS * CB_MAX_RANKS * 4)

#endif

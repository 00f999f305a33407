/* Sizes of the signal pads that custom kernels use for cross-GPU flags (kernels/signal.cuh),
 * visible to host C code that allocates them. Pad layout: uint32 flag[slot][block][source rank]. */
#ifndef CB_SIGNAL_PAD_H
#define CB_SIGNAL_PAD_H

#include "cb_limits.h"

#define CB_SIGNAL_MAX_BLOCKS 512 /* blocks that barrier independently */
#define CB_SIGNAL_SLOTS 4        /* distinct barriers one kernel may use */
#define CB_SIGNAL_PAD_BYTES (CB_SIGNAL_SLOTS * CB_SIGNAL_MAX_BLOCKS * CB_MAX_RANKS * 4)

/* Control words shared by the host and the custom kernels of one rank: uint32 ctl[CB_CTL_WORDS]
 * in host-mapped pinned memory (cb_world_t.ctl_host / ctl_dev). Kernels read them only on the
 * slow path of a spin (every CB_SPIN_CTL_EVERY polls after the first miss), so a flag that is
 * already set costs nothing extra. */
#define CB_CTL_ABORT 0   /* host -> kernels: 1 = the job is being aborted, stop spinning (trap) */
#define CB_CTL_TIMEOUT 1 /* kernel -> host: 1 + the peer rank a device spin timed out on */
#define CB_CTL_WORDS 4
#define CB_SPIN_CTL_EVERY 1024

#endif

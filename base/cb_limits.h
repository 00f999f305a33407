/* Limits and size arithmetic that every layer shares (host C, CUDA C and device code): the
 * number of ranks of one node that custom kernels connect, and the round-up used to lay out
 * buffers. Written once here so the kernels, the algorithms and the launcher cannot disagree. */
#ifndef CB_LIMITS_H
#define CB_LIMITS_H

/* Ranks of one node that custom peer-memory kernels connect: kernels keep per-peer pointers
 * and registers in arrays of this size, and signal pads hold one flag per source rank. */
#define CB_MAX_RANKS 8

/* x rounded up to a multiple of a (a > 0); offsets inside one allocation use a = 256 so each
 * region starts on a 256-byte boundary (cudaMalloc's own alignment). */
#define CB_ALIGN_UP(x, a) (((x) + (a)-1) / (a) * (a))

/* Largest SM cap the command line and CB_SMS accept before the device is known (the device's
 * own SM count is the real limit, checked once the GPU is open). */
#define CB_SMS_MAX 65536

#endif

/* A compute-bound stand-in for the work that runs beside communication (the experts' GEMMs
 * during an MoE round trip): launcher/overlap.c runs it on the SMs a communication kernel leaves
 * free and times both together (collbench moe --overlap). */
#ifndef CB_BUSY_H
#define CB_BUSY_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prepares the kernel on the current device: returns the dynamic shared memory per block
 * (the most one block may take) to pass to cb_busy_launch. */
int cb_busy_setup(void);
/* `blocks` blocks (with smem from cb_busy_setup each takes a whole SM: one block per SM, so
 * `blocks` SMs are occupied), each thread running `steps` steps of 8 independent fp32 FMA chains in
 * registers (no memory traffic but one word per thread at the end, into sink[blocks * 1024]). */
void cb_busy_launch(int blocks, long long steps, int smem, float *sink, cudaStream_t s);
/* Floats sink must hold for `blocks` blocks. */
size_t cb_busy_sink_floats(int blocks);

#ifdef __cplusplus
}
#endif
#endif

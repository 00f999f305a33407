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
 * (the most one block may take) to pass to cb_busy_launch; exits (runtime error) if with it
 * more than one block would fit on an SM. */
int cb_busy_setup(void);
/* `blocks` blocks (with smem from cb_busy_setup each takes a whole SM: one block per SM, so
 * `blocks` SMs are occupied), each thread running `steps` steps of 8 independent fp32 FMA chains in
 * registers (no memory traffic but one word per thread at the end, into sink[blocks * 1024]). */
void cb_busy_launch(int blocks, long long steps, int smem, float *sink, cudaStream_t s);
/* One thread that waits ns nanoseconds on s: the launches queued behind it start together
 * (launcher/overlap.c holds a run's start with it while the host queues the run). */
void cb_busy_gate(long long ns, cudaStream_t s);
/* Floats sink must hold for `blocks` blocks. */
size_t cb_busy_sink_floats(int blocks);

#ifdef __cplusplus
}
#endif
#endif

/* cb_world_wait_stream (world.h): the one way every layer waits for a stream, polling so the
 * waiting thread takes the watchdog's abort request (base/error.h) instead of sitting inside
 * cudaStreamSynchronize, and so a custom kernel's device timeout is reported as the peer that
 * did not arrive. Lives in collectives/ because algorithms (peer.c, check.c, the MoE paths) wait
 * with it; the rank start (launcher/world.c) sets up the control words it reads. */
#include <sched.h>

#include "error_gpu.h"
#include "signal.h"
#include "watchdog.h"
#include "world.h"

void cb_world_wait_stream(const cb_world_t *w, cudaStream_t st, const char *what) {
  if (!what) what = w->wd ? w->wd->what : "a stream wait"; /* (written by this thread only) */
  for (;;) {
    cudaError_t e = cudaStreamQuery(st);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) {
      unsigned int peer = w->ctl_host ? w->ctl_host[CB_CTL_TIMEOUT] : 0;
      if (peer) {
        CB_ERROR("timeout: %s: a custom kernel on this rank waited %.1f s for peer rank %u, which did not arrive at "
                 "its device barrier (stalled, stopped or dead); aborting the job (%s)",
                 what, w->spin_timeout_ns * 1e-9, peer - 1, cudaGetErrorString(e));
        /* The trap took the CUDA context down with it: NCCL cannot be aborted cleanly on a lost
         * context (and need not be: the process exit releases it), so the job ends without the
         * hook. */
        cb_abort_job_unhooked(CB_EXIT_TIMEOUT);
      }
      cb_abort_poll(); /* a trap after the host asked the kernels to stop */
      cb_check_cuda(e, "cudaStreamQuery(stream)", __FILE__, __LINE__);
    }
    cb_abort_poll();
    sched_yield();
  }
}

/* Implementation of error_gpu.h. */
#include "error_gpu.h"

#include <sched.h>
#include <stdio.h>

void cb_check_cuda(cudaError_t e, const char *call, const char *file, int line) {
  if (e == cudaSuccess) return;
  char detail[512];
  snprintf(detail, sizeof detail, "%s failed at %s:%d: %s", call, file, line, cudaGetErrorString(e));
  cb_exit_if_device_timeout(detail);
  const int code = cb_failure_code(CB_FAILED_CUDA, file, line, cudaGetErrorString(e), CB_EXIT_RUNTIME);
  cb_fatal(code, file, line, "%s failed: %s: %s", call, cudaGetErrorName(e), cudaGetErrorString(e));
}

void cb_check_nccl(ncclResult_t r, const char *call, const char *file, int line) {
  if (r == ncclSuccess || r == ncclInProgress) return;
  const char *last = ncclGetLastError(NULL);
  char what[1024];
  snprintf(what, sizeof what, "%s / %s", ncclGetErrorString(r), last ? last : ""); /* nccl-tests' NCCLCHECK text */
  const int code = cb_failure_code(CB_FAILED_NCCL, file, line, what, CB_EXIT_RUNTIME);
  cb_fatal(code, file, line, "%s failed: NCCL error %d: %s (%s)", call, (int)r, ncclGetErrorString(r),
           last ? last : "");
}

int cb_try_cuda(cudaError_t e, const char *call, char *why, size_t n) {
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError();
  snprintf(why, n, "%s: %s", call, cudaGetErrorString(e));
  return -1;
}

void cb_wait_stream(cudaStream_t st) {
  for (;;) {
    cudaError_t e = cudaStreamQuery(st);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) {
      cb_abort_poll(); /* a trap after the host asked the kernels to stop */
      cb_check_cuda(e, "cudaStreamQuery(stream)", __FILE__, __LINE__); /* names a timed-out peer first */
    }
    cb_abort_poll();
    sched_yield();
  }
}

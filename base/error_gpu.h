/* CUDA and NCCL result checks (host side). Same message format and exit path as error.h:
 * rank, host, file:line, the call's text, the library's error name and string. */
#ifndef CB_ERROR_GPU_H
#define CB_ERROR_GPU_H

#include <cuda_runtime.h>
#include <nccl.h>
#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

void cb_check_cuda(cudaError_t e, const char *call, const char *file, int line);
void cb_check_nccl(ncclResult_t r, const char *call, const char *file, int line);

/* Non-fatal form for conditions a row can report instead of aborting (out of memory in an
 * algorithm's setup, IPC open failure in the peer probe): returns 0 on success, else writes
 * "call: error" into why and returns -1, clearing CUDA's sticky last error. */
int cb_try_cuda(cudaError_t e, const char *call, char *why, size_t n);

/* Waits for stream st by polling cudaStreamQuery, the one way every layer waits for a stream:
 * this thread takes an abort request from the watchdog (error.h) instead of sitting inside
 * cudaStreamSynchronize, a failure after a custom kernel's device timeout ends the job with
 * CB_EXIT_TIMEOUT naming the peer (cb_exit_if_device_timeout), any other failure is a CUDA
 * error (CB_EXIT_RUNTIME). */
void cb_wait_stream(cudaStream_t st);

#ifdef __cplusplus
}
#endif

#define CB_CUDA(call) cb_check_cuda((call), #call, __FILE__, __LINE__)
#define CB_NCCL(call) cb_check_nccl((call), #call, __FILE__, __LINE__)
/* After a kernel launch: launch-configuration errors show up here. */
#define CB_CUDA_LAUNCH(what) cb_check_cuda(cudaGetLastError(), what, __FILE__, __LINE__)
#define CB_TRY_CUDA(call, why, n) cb_try_cuda((call), #call, (why), (n))

#endif

/* nccl-tests' failure lines and exit codes in the drop-in (docs/nccl-tests.md "Exit codes"),
 * as its src/common.h macros print them on stdout:
 *   a failed CUDA call   "HOST: Test CUDA failure FILE:LINE 'cudaGetErrorString'"     exit 2
 *   a failed NCCL call   "HOST: Test NCCL failure FILE:LINE 'error string / last error'" exit 3
 *   the watchdog's -T    "HOST: Test timeout (Ns) FILE:LINE"                           exit 4
 * each followed by the trace line of the frame that failed (TESTCHECK's
 *   " .. HOST pid PID: Test failure FILE:LINE"; nccl-tests prints one per calling frame, the
 * drop-in the failing call's own); and a wrong value or an average below NCCL_TESTS_MIN_BW
 * (exit 7) ends each rank's output with that trace line, as nccl-tests' main does. HOST is the
 * host name up to its first dot, FILE the source file's name without its folder. collbench's
 * own line (rank, host, file:line, the call; the timeout's step and missing ranks) still goes
 * to stderr. The text functions are pure (tests/cpu/test_ncclt_table.c, test_ncclt_fail.c). */
#ifndef CB_NCCLT_FAIL_H
#define CB_NCCLT_FAIL_H

#include <stddef.h>

#include "error.h"

/* nccl-tests' testResult_t codes the drop-in exits with. */
#define CB_NCCLT_EXIT_CUDA 2
#define CB_NCCLT_EXIT_NCCL 3
#define CB_NCCLT_EXIT_TIMEOUT 4

/* The failure line and its trace line (each ending in a newline) into buf. */
void cb_ncclt_fail_text(cb_failed_lib_t lib, const char *host, int pid, const char *file, int line, const char *what,
                        char *buf, size_t n);
/* The trace line alone: " .. HOST pid PID: Test failure FILE:LINE\n". */
void cb_ncclt_trace_text(const char *host, int pid, const char *file, int line, char *buf, size_t n);

/* Installs the hook (error.h cb_set_failure_hook) that prints the lines on stdout and picks the
 * exit code: call before the run (before MPI). */
void cb_ncclt_fail_install(void);

/* This rank's trace line on stdout (exit 7 after the footer), with the caller's file:line. */
void cb_ncclt_fail_results(const char *file, int line);

#endif

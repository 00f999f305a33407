/* Loud, specific failure handling shared by every part of collbench.
 *
 * Every MPI / hwloc call goes through CB_MPI / CB_HWLOC (CUDA and NCCL: error_gpu.h). A failure
 * prints one line to stderr naming rank, host, file:line, the call's text and the library's
 * error string, runs the abort hook (ncclCommAbort) and ends the whole job with a documented
 * exit code (MPI_Abort when MPI is up, exit() otherwise). Runtime conditions are never checked
 * with assert(): NDEBUG would remove them. */
#ifndef CB_ERROR_H
#define CB_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of collbench and its tools (README "Exit codes"). */
enum cb_exit_code {
  CB_EXIT_OK = 0,        /* every row correct (skipped rows do not count as failures) */
  CB_EXIT_WRONG = 1,     /* at least one wrong element in a correctness check */
  CB_EXIT_USAGE = 2,     /* bad command line, bad input file or bad CB_* knob */
  CB_EXIT_RUNTIME = 3,   /* a CUDA / NCCL / MPI / hwloc call failed */
  CB_EXIT_TIMEOUT = 4,   /* the watchdog saw an iteration exceed --timeout */
  CB_EXIT_ENV = 5,       /* the machine cannot run this: no GPU, more ranks than GPUs, ... */
  CB_EXIT_BELOW_BAR = 6, /* below the performance bar the user set (launcher/gate.h) */
};

/* Prints "collbench: [rank R/N host H] file:line: message" to stderr and ends the job. */
void cb_fatal(int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
#define CB_DIE(code, ...) cb_fatal((code), __FILE__, __LINE__, __VA_ARGS__)

/* Same prefix, no exit: for warnings and for the watchdog's report. */
void cb_warn(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define CB_WARN(...) cb_warn(__FILE__, __LINE__, __VA_ARGS__)

void cb_check_mpi(int rc, const char *call, const char *file, int line);
#define CB_MPI(call) cb_check_mpi((call), #call, __FILE__, __LINE__)

/* hwloc returns -1 (errno set) or NULL on failure; pass `rc < 0` style results as int. */
void cb_check_hwloc(int rc, const char *call, const char *file, int line);
#define CB_HWLOC(call) cb_check_hwloc((call), #call, __FILE__, __LINE__)

/* Same prefix and "error" kind as cb_fatal, no exit: for a report that precedes an abort. */
void cb_error(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define CB_ERROR(...) cb_error(__FILE__, __LINE__, __VA_ARGS__)

/* Seconds the abort hook and MPI_Abort get before an alarm ends the process (error.c). */
#define CB_EXIT_GUARD_S 2

/* Ends the job: runs the abort hook once, then MPI_Abort (if MPI is initialized and not
 * finalized) or exit(). Call it from the thread that owns NCCL and the CUDA streams (the main
 * thread): the hook aborts the communicator, which must not be in use by another thread. If the
 * hook or MPI_Abort itself hangs, an alarm ends the process with `code` after CB_EXIT_GUARD_S. */
void cb_abort_job(int code) __attribute__((noreturn));

/* The same without the hook, for a thread that does not own the resources (the watchdog thread
 * when the main thread is blocked inside a library call): destroying a communicator the main
 * thread is still inside is what crashed with SIGSEGV in ncclAllReduce -> cuEventRecord. Also
 * for a CUDA context lost to a trapped kernel, where NCCL cannot be aborted cleanly. */
void cb_abort_job_unhooked(int code) __attribute__((noreturn));

/* The abort request: the watchdog thread asks, the main thread acts at its next poll point
 * (cb_abort_poll in every wait loop: MPI requests, stream queries), so the thread that owns
 * NCCL is the one that aborts it. A request also sets the kernel abort word (below) at once so
 * custom kernels spinning on flags stop. cb_abort_poll does not return when a request is
 * pending. cb_abort_taken says whether some thread has begun ending the job. */
void cb_abort_request(int code);
int cb_abort_pending(void);
void cb_abort_poll(void);
int cb_abort_taken(void);

/* A host word the custom kernels poll in every spin (host-mapped pinned memory, set up by the
 * world): cb_abort_request stores 1 into it. NULL (the default) = no kernels to stop. */
void cb_set_kernel_abort_word(volatile unsigned int *word);

/* The word a custom kernel's spin sets to peer rank + 1 when it times out (host-mapped, set up
 * by the world), the spin limit in seconds, and the text of the current step (the watchdog's).
 * NULL word (the default) = no custom kernels. */
void cb_set_device_timeout_word(volatile unsigned int *word, double spin_s, const char *step);

/* After a failed CUDA call: if a custom kernel on this rank timed out waiting for a peer, the
 * CUDA error is only its consequence (the trap took the context), so this reports
 * "timeout: STEP: ... waited S s for peer rank P ..." with detail and ends the job with
 * CB_EXIT_TIMEOUT, without the abort hook (NCCL cannot be aborted on a lost context). Returns
 * when no kernel timed out. cb_check_cuda and the polled stream wait both call it, so the
 * outcome does not depend on which CUDA call notices the trap first. */
void cb_exit_if_device_timeout(const char *detail);

/* One hook run before the job is aborted (collbench registers ncclCommAbort here). This and
 * the words above are the only process-wide mutable state in collbench: an abort must reach the communicator from
 * any frame or thread, without threading it through every call. */
void cb_set_abort_hook(void (*fn)(void *), void *arg);

/* A failed library call's (or the watchdog's) report beside collbench's own line, for a program that must print
 * another tool's failure lines and end with that tool's exit codes (the nccl-tests drop-in,
 * launcher/ncclt_fail.h). The hook gets the library, the call's file and line and the library's
 * error text, may print, and returns the exit code the job ends with. One hook, set before the
 * run starts (like the abort hook, process-wide: a failure in any frame must reach it). */
typedef enum cb_failed_lib {
  CB_FAILED_CUDA,   /* what: the CUDA error string */
  CB_FAILED_NCCL,   /* what: the NCCL error string " / " its last error */
  CB_FAILED_TIMEOUT /* the watchdog's limit passed; what: the limit in seconds, as text */
} cb_failed_lib_t;
typedef int (*cb_failure_hook_fn)(cb_failed_lib_t lib, const char *file, int line, const char *what, int code);
void cb_set_failure_hook(cb_failure_hook_fn fn);
/* The hook's exit code for a failure (code itself when no hook is set); runs the hook once per
 * process (a second failure while the job ends keeps the first one's code). */
int cb_failure_code(cb_failed_lib_t lib, const char *file, int line, const char *what, int code);

/* "R/N host" of this process, for message prefixes (MPI rank if MPI is up, else "-"). */
void cb_ident(char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif

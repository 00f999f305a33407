/* Implementation of error.h: message prefixes, MPI/hwloc result checks and job abort. */
#define _GNU_SOURCE
#include "error.h"

#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void (*abort_hook)(void *);
static void *abort_hook_arg;
static atomic_int aborting;
static atomic_int abort_requested; /* 0, or the exit code asked for */
static volatile unsigned int *kernel_abort_word;
static volatile unsigned int *device_timeout_word; /* peer + 1 after a kernel's spin timed out */
static double device_timeout_s;
static const char *device_timeout_step;
static volatile sig_atomic_t guard_code = CB_EXIT_RUNTIME;
static cb_failure_hook_fn failure_hook;
static atomic_int failure_code; /* 0, or the code the first reported failure chose */

void cb_set_kernel_abort_word(volatile unsigned int *word) { kernel_abort_word = word; }

void cb_set_device_timeout_word(volatile unsigned int *word, double spin_s, const char *step) {
  device_timeout_word = word;
  device_timeout_s = spin_s;
  device_timeout_step = step;
}

void cb_exit_if_device_timeout(const char *detail) {
  unsigned int peer = device_timeout_word ? *device_timeout_word : 0;
  if (!peer) return;
  CB_ERROR("timeout: %s: a custom kernel on this rank waited %.1f s for peer rank %u, which did not arrive at its "
           "device barrier (stalled, stopped or dead); aborting the job (%s)",
           device_timeout_step && device_timeout_step[0] ? device_timeout_step : "a custom kernel", device_timeout_s,
           peer - 1, detail);
  char limit[32];
  snprintf(limit, sizeof limit, "%g", device_timeout_s);
  cb_abort_job_unhooked(cb_failure_code(CB_FAILED_TIMEOUT, __FILE__, __LINE__, limit, CB_EXIT_TIMEOUT));
}

void cb_set_failure_hook(cb_failure_hook_fn fn) { failure_hook = fn; }

int cb_failure_code(cb_failed_lib_t lib, const char *file, int line, const char *what, int code) {
  if (!failure_hook) return code;
  const int first = atomic_load(&failure_code);
  if (first) return first;
  const int chosen = failure_hook(lib, file, line, what, code);
  int none = 0;
  return atomic_compare_exchange_strong(&failure_code, &none, chosen) ? chosen : none;
}

void cb_set_abort_hook(void (*fn)(void *), void *arg) {
  abort_hook = fn;
  abort_hook_arg = arg;
}

static int mpi_is_up(void) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

void cb_ident(char *buf, size_t n) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = 0;
  if (mpi_is_up()) {
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(buf, n, "rank %d/%d host %s", rank, size, host);
  } else {
    snprintf(buf, n, "host %s pid %d", host, (int)getpid());
  }
}

static void vreport(const char *kind, const char *file, int line, const char *fmt, va_list ap) {
  char id[320], msg[2048];
  cb_ident(id, sizeof id);
  vsnprintf(msg, sizeof msg, fmt, ap);
  /* One fprintf so lines from different ranks do not interleave mid-line. */
  fprintf(stderr, "collbench: %s[%s] %s:%d: %s\n", kind, id, file, line, msg);
  fflush(stderr);
}

void cb_warn(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning ", file, line, fmt, ap);
  va_end(ap);
}

void cb_error(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error ", file, line, fmt, ap);
  va_end(ap);
}

static void guard_fired(int sig) {
  (void)sig;
  _exit(guard_code);
}

/* If the hook or MPI_Abort hangs (a communicator whose peer is stopped, a runtime waiting on a
 * dead daemon), SIGALRM ends this process with the job's code; mpirun then ends the rest.
 * ncclCommAbort of a communicator over NCCL's socket transport with a stopped peer did hang
 * (2 virtual nodes on one H200; docs/decisions/failures.md): with 4 s here those jobs ended 5.2-5.4 s
 * after the timeout, past the T + 5 s that -T promises; 2 s leaves room for the takeover (at
 * most 1 s) and mpirun's teardown. Where the hook and MPI_Abort are quick it never fires. */
static void arm_exit_guard(int code) {
  guard_code = code;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = guard_fired;
  sigaction(SIGALRM, &sa, NULL);
  alarm(CB_EXIT_GUARD_S);
}

static void end_job(int code, int hooked) {
  if (atomic_exchange(&aborting, 1)) {
    /* A second thread is already aborting: let it finish; this one just stops here. */
    for (;;) pause();
  }
  arm_exit_guard(code);
  if (kernel_abort_word) *kernel_abort_word = 1;
  fflush(stdout);
  if (hooked && abort_hook) abort_hook(abort_hook_arg);
  if (mpi_is_up()) MPI_Abort(MPI_COMM_WORLD, code);
  _exit(code);
}

void cb_abort_job(int code) {
  end_job(code, 1);
  for (;;) pause(); /* not reached */
}

void cb_abort_job_unhooked(int code) {
  end_job(code, 0);
  for (;;) pause();
}

void cb_abort_request(int code) {
  int none = 0;
  atomic_compare_exchange_strong(&abort_requested, &none, code);
  if (kernel_abort_word) *kernel_abort_word = 1;
}

int cb_abort_pending(void) { return atomic_load(&abort_requested) != 0; }

int cb_abort_taken(void) { return atomic_load(&aborting) != 0; }

void cb_abort_poll(void) {
  int code = atomic_load(&abort_requested);
  if (code) cb_abort_job(code);
}

void cb_fatal(int code, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error ", file, line, fmt, ap);
  va_end(ap);
  cb_abort_job(code);
}

void cb_check_mpi(int rc, const char *call, const char *file, int line) {
  if (rc == MPI_SUCCESS) return;
  char s[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, s, &len);
  cb_fatal(CB_EXIT_RUNTIME, file, line, "%s failed: MPI error %d: %s", call, rc, s);
}

void cb_check_hwloc(int rc, const char *call, const char *file, int line) {
  if (rc >= 0) return;
  int e = errno;
  cb_fatal(CB_EXIT_RUNTIME, file, line, "%s failed: hwloc: %s (errno %d)", call, strerror(e), e);
}

/* Implementation of ncclt_fail.h. */
#include "ncclt_fail.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* nccl-tests' getHostName: the host name up to its first dot. */
static void short_host(char *buf, size_t n) {
  if (gethostname(buf, n) != 0) snprintf(buf, n, "unknown");
  buf[n - 1] = 0;
  char *dot = strchr(buf, '.');
  if (dot) *dot = 0;
}

static const char *base_name(const char *file) {
  const char *slash = strrchr(file, '/');
  return slash ? slash + 1 : file;
}

void cb_ncclt_trace_text(const char *host, int pid, const char *file, int line, char *buf, size_t n) {
  snprintf(buf, n, " .. %s pid %d: Test failure %s:%d\n", host, pid, base_name(file), line);
}

void cb_ncclt_fail_text(cb_failed_lib_t lib, const char *host, int pid, const char *file, int line, const char *what,
                        char *buf, size_t n) {
  /* nccl-tests' CUDACHECK / NCCLCHECK lines, and testStreamSynchronize's timeout line */
  int used = lib == CB_FAILED_TIMEOUT
                 ? snprintf(buf, n, "%s: Test timeout (%ss) %s:%d\n", host, what, base_name(file), line)
                 : snprintf(buf, n, "%s: Test %s failure %s:%d '%s'\n", host, lib == CB_FAILED_NCCL ? "NCCL" : "CUDA",
                            base_name(file), line, what);
  if (used < 0 || (size_t)used >= n) return;
  cb_ncclt_trace_text(host, pid, file, line, buf + used, n - (size_t)used);
}

static int print_failure(cb_failed_lib_t lib, const char *file, int line, const char *what, int code) {
  (void)code;
  char host[256], text[2048];
  short_host(host, sizeof host);
  cb_ncclt_fail_text(lib, host, (int)getpid(), file, line, what, text, sizeof text);
  fflush(stdout); /* the table lines before it */
  fputs(text, stdout);
  fflush(stdout);
  return lib == CB_FAILED_TIMEOUT ? CB_NCCLT_EXIT_TIMEOUT
         : lib == CB_FAILED_NCCL  ? CB_NCCLT_EXIT_NCCL
                                  : CB_NCCLT_EXIT_CUDA;
}

void cb_ncclt_fail_install(void) { cb_set_failure_hook(print_failure); }

void cb_ncclt_fail_results(const char *file, int line) {
  char host[256], text[512];
  short_host(host, sizeof host);
  cb_ncclt_trace_text(host, (int)getpid(), file, line, text, sizeof text);
  fputs(text, stdout);
  fflush(stdout);
}

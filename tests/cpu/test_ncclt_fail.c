/* The drop-in's failure path (launcher/ncclt_fail.c through base/error.c's failure hook), run
 * for real without a GPU: a child process installs the hook and fails a CUDA or an NCCL check
 * the way a failed call does (cb_check_cuda / cb_check_nccl with the library's error code); the
 * parent reads the child's stdout and exit status: nccl-tests' "Test CUDA failure" / "Test NCCL
 * failure" line, its trace line, exit 2 and 3 (nccl-tests' testCudaError, testNcclError), and
 * collbench's own line on stderr. Without the hook the same failure exits 3 with nothing on
 * stdout. Also CB_FAULT=wrong:RANK:check (base/fault.c), the test injection of a wrong value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cb_testing.h"
#include "error_gpu.h"
#include "fault.h"
#include "ncclt_fail.h"

enum { FAIL_CUDA, FAIL_NCCL };

/* Runs one failure in a child; its stdout and stderr into out/err, its exit code returned. */
static int child(int what, int hooked, char *out, size_t nout, char *err, size_t nerr) {
  int po[2], pe[2];
  if (pipe(po) || pipe(pe)) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(po[1], 1);
    dup2(pe[1], 2);
    close(po[0]);
    close(pe[0]);
    if (hooked) cb_ncclt_fail_install();
    if (what == FAIL_CUDA) CB_CUDA(cudaErrorMemoryAllocation);
    else CB_NCCL(ncclInvalidArgument);
    _exit(99); /* not reached: the check ends the process */
  }
  close(po[1]);
  close(pe[1]);
  ssize_t k = read(po[0], out, nout - 1);
  out[k > 0 ? k : 0] = 0;
  k = read(pe[0], err, nerr - 1);
  err[k > 0 ? k : 0] = 0;
  close(po[0]);
  close(pe[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void) {
  char out[4096], err[4096], want[512], host[256];
  gethostname(host, sizeof host);
  host[sizeof host - 1] = 0;
  char *dot = strchr(host, '.');
  if (dot) *dot = 0;

  CHECK_EQ_INT(child(FAIL_CUDA, 1, out, sizeof out, err, sizeof err), CB_NCCLT_EXIT_CUDA);
  snprintf(want, sizeof want, "%s: Test CUDA failure test_ncclt_fail.c:", host);
  CHECK(strncmp(out, want, strlen(want)) == 0, "stdout '%s', expected it to start '%s'", out, want);
  CHECK_CONTAINS(out, " 'out of memory'\n");
  snprintf(want, sizeof want, "\n .. %s pid ", host);
  CHECK_CONTAINS(out, want);
  CHECK_CONTAINS(out, ": Test failure test_ncclt_fail.c:");
  CHECK_CONTAINS(err, "cudaErrorMemoryAllocation"); /* collbench's own line stays on stderr */

  CHECK_EQ_INT(child(FAIL_NCCL, 1, out, sizeof out, err, sizeof err), CB_NCCLT_EXIT_NCCL);
  snprintf(want, sizeof want, "%s: Test NCCL failure test_ncclt_fail.c:", host);
  CHECK(strncmp(out, want, strlen(want)) == 0, "stdout '%s', expected it to start '%s'", out, want);
  CHECK_CONTAINS(out, " 'invalid argument (run with NCCL_DEBUG=WARN for details) / ");
  CHECK_CONTAINS(out, ": Test failure test_ncclt_fail.c:");
  CHECK_CONTAINS(err, "NCCL error");

  /* the watchdog's limit: nccl-tests' timeout line (its testStreamSynchronize) and trace */
  char text[512];
  cb_ncclt_fail_text(CB_FAILED_TIMEOUT, "node1", 42, "/x/base/watchdog.c", 130, "5", text, sizeof text);
  CHECK(strcmp(text, "node1: Test timeout (5s) watchdog.c:130\n .. node1 pid 42: Test failure watchdog.c:130\n") == 0,
        "%s", text);

  /* collbench's own program: no hook, exit 3, nothing on stdout */
  CHECK_EQ_INT(child(FAIL_CUDA, 0, out, sizeof out, err, sizeof err), CB_EXIT_RUNTIME);
  CHECK_EQ_INT((long long)strlen(out), 0);
  CHECK_EQ_INT(child(FAIL_NCCL, 0, out, sizeof out, err, sizeof err), CB_EXIT_RUNTIME);
  CHECK_EQ_INT((long long)strlen(out), 0);

  /* CB_FAULT=wrong: the check step only; fires at its N-th occurrence on its rank */
  cb_fault_t f;
  char why[256];
  memset(&f, 0, sizeof f);
  CHECK(cb_fault_parse("wrong:1:check:2", &f, why, sizeof why) == 0 && f.action == CB_FAULT_WRONG, "%s", why);
  CHECK(cb_fault_parse("wrong:1:round", &f, why, sizeof why) == -1 && strstr(why, "check only"), "%s", why);
  CHECK(cb_fault_parse("wrong:1:check:2", &f, why, sizeof why) == 0, "%s", why);
  int fired[4];
  for (int i = 0; i < 4; i++) {
    cb_fault_due(&f, 1, CB_PHASE_CHECK);
    fired[i] = cb_fault_wrong_now(&f, 1);
  }
  CHECK(!fired[0] && fired[1] && !fired[2] && !fired[3], "fired %d %d %d %d", fired[0], fired[1], fired[2], fired[3]);
  CHECK(!cb_fault_wrong_now(&f, 0), "another rank");
  return cb_test_finish("test_ncclt_fail");
}

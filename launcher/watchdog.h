/* The watchdog: turns a hang into an error. The bench engine arms it around every batch of
 * work that could block (a warm-up, a timed round, a check, a cross-rank reduction) with a
 * description ("allreduce oneshot float 1 MiB: timed round 2"). If the batch is not disarmed
 * within the timeout, the watchdog thread prints which rank and what hung, and ends the job
 * with CB_EXIT_TIMEOUT through cb_abort_job (whose hook aborts the NCCL communicator). A second
 * alarm kills the process outright if the abort itself hangs. CUDA-free: the MPI tests use it. */
#ifndef CB_WATCHDOG_H
#define CB_WATCHDOG_H

#include <pthread.h>

typedef struct cb_watchdog {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int running, armed, stop;
  double timeout_s;
  double deadline; /* CLOCK_MONOTONIC seconds */
  char what[512];
} cb_watchdog_t;

void cb_watchdog_start(cb_watchdog_t *wd, double timeout_s);
void cb_watchdog_arm(cb_watchdog_t *wd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cb_watchdog_disarm(cb_watchdog_t *wd);
void cb_watchdog_stop(cb_watchdog_t *wd);

#endif

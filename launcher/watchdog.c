/* Implementation of watchdog.h. */
#include "watchdog.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *watch(void *arg) {
  cb_watchdog_t *wd = arg;
  pthread_mutex_lock(&wd->lock);
  while (!wd->stop) {
    if (wd->armed && now_s() >= wd->deadline) {
      char what[512];
      snprintf(what, sizeof what, "%s", wd->what);
      double t = wd->timeout_s;
      pthread_mutex_unlock(&wd->lock);
      /* If aborting NCCL or MPI hangs too, SIGALRM's default action ends the process; mpirun
       * then takes the rest of the job down. */
      alarm(15);
      CB_DIE(CB_EXIT_TIMEOUT, "timeout: %s did not finish within %.0f s (-T/--timeout); aborting the job", what, t);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&wd->cond, &wd->lock, &ts);
  }
  pthread_mutex_unlock(&wd->lock);
  return NULL;
}

void cb_watchdog_start(cb_watchdog_t *wd, double timeout_s) {
  memset(wd, 0, sizeof *wd);
  pthread_mutex_init(&wd->lock, NULL);
  pthread_cond_init(&wd->cond, NULL);
  wd->timeout_s = timeout_s;
  int rc = pthread_create(&wd->thread, NULL, watch, wd);
  if (rc) CB_DIE(CB_EXIT_RUNTIME, "pthread_create(watchdog) failed: %s", strerror(rc));
  wd->running = 1;
}

void cb_watchdog_arm(cb_watchdog_t *wd, const char *fmt, ...) {
  pthread_mutex_lock(&wd->lock);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(wd->what, sizeof wd->what, fmt, ap);
  va_end(ap);
  wd->deadline = now_s() + wd->timeout_s;
  wd->armed = 1;
  pthread_mutex_unlock(&wd->lock);
}

void cb_watchdog_disarm(cb_watchdog_t *wd) {
  pthread_mutex_lock(&wd->lock);
  wd->armed = 0;
  pthread_mutex_unlock(&wd->lock);
}

void cb_watchdog_stop(cb_watchdog_t *wd) {
  if (!wd->running) return;
  pthread_mutex_lock(&wd->lock);
  wd->stop = 1;
  pthread_cond_signal(&wd->cond);
  pthread_mutex_unlock(&wd->lock);
  pthread_join(wd->thread, NULL);
  pthread_mutex_destroy(&wd->lock);
  pthread_cond_destroy(&wd->cond);
  wd->running = 0;
}

/* Implementation of watchdog.h. */
#define _DEFAULT_SOURCE
#include "watchdog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

#define HEARTBEAT_S 0.25 /* a rank tells its peers its step at least this often */
#define SILENT_S 2.0     /* no message for this long: the rank is stopped, dead or hung */
#define TAKEOVER_S 1.0   /* time the main thread gets to take an abort request */
#define ARRIVAL_TAG 7

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* MPI calls on the watchdog thread: a failure ends the job without the hook (the main thread
 * owns NCCL). */
static void thread_mpi(int rc, const char *call) {
  if (rc == MPI_SUCCESS) return;
  char s[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, s, &len);
  CB_ERROR("watchdog thread: %s failed: MPI error %d: %s", call, rc, s);
  cb_abort_job_unhooked(CB_EXIT_RUNTIME);
}
#define WD_MPI(call) thread_mpi((call), #call)

/* One tick of the arrival exchange: send the current step to every peer whose previous message
 * has left (on a change of step, or as a heartbeat), take in every message that arrived. */
static void exchange(cb_watchdog_t *wd, long long step) {
  double t = now_s();
  if (step != wd->sent_step || t - wd->last_beat >= HEARTBEAT_S) {
    for (int p = 0; p < wd->nranks; p++) {
      if (p == wd->rank) continue;
      int done = 1;
      if (wd->sreq[p] != MPI_REQUEST_NULL) WD_MPI(MPI_Test(&wd->sreq[p], &done, MPI_STATUS_IGNORE));
      if (!done) continue; /* the peer has not taken the last one: it gets the next heartbeat */
      wd->sbuf[2 * p] = step;
      wd->sbuf[2 * p + 1] = wd->beats;
      WD_MPI(MPI_Isend(wd->sbuf + 2 * p, 2, MPI_LONG_LONG, p, ARRIVAL_TAG, wd->comm, &wd->sreq[p]));
      wd->nsent[p]++;
    }
    wd->sent_step = step;
    wd->last_beat = t;
    wd->beats++;
  }
  for (int p = 0; p < wd->nranks; p++) {
    if (p == wd->rank) continue;
    for (;;) {
      int got = 0;
      WD_MPI(MPI_Test(&wd->rreq[p], &got, MPI_STATUS_IGNORE));
      if (!got) break;
      wd->nrecv[p]++;
      pthread_mutex_lock(&wd->lock);
      if (wd->rbuf[2 * p] > wd->peer_step[p]) wd->peer_step[p] = wd->rbuf[2 * p];
      wd->peer_heard[p] = now_s();
      pthread_mutex_unlock(&wd->lock);
      WD_MPI(MPI_Irecv(wd->rbuf + 2 * p, 2, MPI_LONG_LONG, p, ARRIVAL_TAG, wd->comm, &wd->rreq[p]));
    }
  }
}

static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t n, const char *fmt, ...) {
  size_t len = strlen(buf);
  if (len + 1 >= n) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, n - len, fmt, ap);
  va_end(ap);
}

void cb_watchdog_missing(cb_watchdog_t *wd, char *buf, size_t n) {
  buf[0] = 0;
  if (wd->nranks <= 1) return;
  if (!wd->exchange) {
    snprintf(buf, n, "which ranks did not arrive is unknown (MPI without MPI_THREAD_MULTIPLE)");
    return;
  }
  pthread_mutex_lock(&wd->lock);
  double t = now_s();
  long long mine = wd->step;
  char behind[1024] = "", silent[1024] = "";
  for (int p = 0; p < wd->nranks; p++) {
    if (p == wd->rank) continue;
    double quiet = t - wd->peer_heard[p];
    const char *state = quiet > SILENT_S ? "stopped, dead or hung" : "alive";
    if (wd->peer_step[p] < mine) {
      if (wd->peer_step[p] < 0)
        append(behind, sizeof behind, "%srank %d (no step reached yet, last heard %.1f s ago: %s)",
               behind[0] ? ", " : "", p, quiet, state);
      else
        append(behind, sizeof behind, "%srank %d (%lld step%s behind, last heard %.1f s ago: %s)",
               behind[0] ? ", " : "", p, mine - wd->peer_step[p], mine - wd->peer_step[p] == 1 ? "" : "s", quiet,
               state);
    } else if (quiet > SILENT_S) {
      append(silent, sizeof silent, "%srank %d (reached this step, last heard %.1f s ago: %s)", silent[0] ? ", " : "",
             p, quiet, state);
    }
  }
  double self_gap = wd->self_gap;
  pthread_mutex_unlock(&wd->lock);
  if (self_gap > SILENT_S)
    append(buf, n,
           "this rank itself did not run for %.1f s (stopped with SIGSTOP, or starved), so the silence "
           "of others may be its own; ",
           self_gap);
  if (behind[0]) append(buf, n, "did not arrive: %s", behind);
  if (silent[0]) append(buf, n, "%ssilent: %s", buf[0] ? "; " : "", silent);
  if (!buf[0])
    snprintf(buf, n,
             "every rank reached this step and is alive (the wait itself is stuck: a GPU kernel, NCCL or the network)");
}

/* The deadline passed: report, ask the main thread to abort, and end the job from here only if
 * it does not take the request (it is blocked inside a library call). */
static void fire(cb_watchdog_t *wd, const char *what, double timeout_s) {
  char miss[2048];
  cb_watchdog_missing(wd, miss, sizeof miss);
  CB_ERROR("timeout: %s did not finish within %g s (-T/--timeout)%s%s; aborting the job", what, timeout_s,
           miss[0] ? "; " : "", miss);
  char limit[32];
  snprintf(limit, sizeof limit, "%g", timeout_s);
  const int code = cb_failure_code(CB_FAILED_TIMEOUT, __FILE__, __LINE__, limit, CB_EXIT_TIMEOUT);
  cb_abort_request(code);
  for (double t0 = now_s(); now_s() - t0 < TAKEOVER_S;) {
    if (cb_abort_taken())
      for (;;) pause(); /* the main thread is ending the job */
    usleep(20 * 1000);
  }
  if (cb_abort_taken())
    for (;;) pause();
  CB_ERROR("the main thread is blocked inside a library call and did not take the abort within %g s; "
           "ending the job without aborting NCCL",
           TAKEOVER_S);
  cb_abort_job_unhooked(code);
}

static void *watch(void *arg) {
  cb_watchdog_t *wd = arg;
  pthread_mutex_lock(&wd->lock);
  wd->last_tick = now_s();
  while (!wd->stop) {
    /* A tick is due every 50 ms: a much longer gap means this process itself did not run
     * (SIGSTOP and SIGCONT, or starved), which the report must not blame on the peers. */
    double t = now_s();
    if (t - wd->last_tick > 1.0) wd->self_gap = t - wd->last_tick;
    wd->last_tick = t;
    if (wd->armed && now_s() >= wd->deadline) {
      char what[512];
      snprintf(what, sizeof what, "%s", wd->what);
      double t = wd->timeout_s;
      pthread_mutex_unlock(&wd->lock);
      fire(wd, what, t); /* does not return */
    }
    long long step = wd->step;
    pthread_mutex_unlock(&wd->lock);
    if (wd->exchange) exchange(wd, step);
    pthread_mutex_lock(&wd->lock);
    if (wd->stop || wd->step != step) continue;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&wd->cond, &wd->lock, &ts);
  }
  pthread_mutex_unlock(&wd->lock);
  return NULL;
}

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n, size);
  if (!p) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  return p;
}

void cb_watchdog_start(cb_watchdog_t *wd, double timeout_s, MPI_Comm comm, cb_fault_t *fault) {
  memset(wd, 0, sizeof *wd);
  pthread_mutex_init(&wd->lock, NULL);
  pthread_cond_init(&wd->cond, NULL);
  wd->timeout_s = timeout_s;
  wd->fault = fault;
  wd->comm = MPI_COMM_NULL;
  wd->nranks = 1;
  int init = 0;
  CB_MPI(MPI_Initialized(&init));
  if (init) CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wd->rank));
  if (comm != MPI_COMM_NULL) {
    int level = MPI_THREAD_SINGLE;
    CB_MPI(MPI_Query_thread(&level));
    CB_MPI(MPI_Comm_rank(comm, &wd->rank));
    CB_MPI(MPI_Comm_size(comm, &wd->nranks));
    wd->exchange = level == MPI_THREAD_MULTIPLE && wd->nranks > 1;
    int n = wd->nranks;
    wd->peer_step = xcalloc((size_t)n, sizeof(long long));
    wd->peer_heard = xcalloc((size_t)n, sizeof(double));
    double t = now_s();
    for (int p = 0; p < n; p++) {
      wd->peer_step[p] = -1;
      wd->peer_heard[p] = t;
    }
    if (wd->exchange) {
      CB_MPI(MPI_Comm_dup(comm, &wd->comm));
      wd->sbuf = xcalloc((size_t)n * 2, sizeof(long long));
      wd->rbuf = xcalloc((size_t)n * 2, sizeof(long long));
      wd->sreq = xcalloc((size_t)n, sizeof(MPI_Request));
      wd->rreq = xcalloc((size_t)n, sizeof(MPI_Request));
      wd->nsent = xcalloc((size_t)n, sizeof(long long));
      wd->nrecv = xcalloc((size_t)n, sizeof(long long));
      wd->sent_step = -1;
      for (int p = 0; p < n; p++) {
        wd->sreq[p] = wd->rreq[p] = MPI_REQUEST_NULL;
        if (p != wd->rank)
          CB_MPI(MPI_Irecv(wd->rbuf + 2 * p, 2, MPI_LONG_LONG, p, ARRIVAL_TAG, wd->comm, &wd->rreq[p]));
      }
    }
  }
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
  wd->step++;
  pthread_cond_signal(&wd->cond); /* tell the peers at once */
  pthread_mutex_unlock(&wd->lock);
}

void cb_watchdog_phase(cb_watchdog_t *wd, cb_phase_t phase) {
  pthread_mutex_lock(&wd->lock);
  int armed = wd->armed;
  pthread_mutex_unlock(&wd->lock);
  if (!armed) return; /* only inside a step the engine opened */
  char what[512];
  snprintf(what, sizeof what, "%s", wd->base);
  cb_watchdog_step(wd, phase, what);
}

void cb_watchdog_step(cb_watchdog_t *wd, cb_phase_t phase, const char *what) {
  snprintf(wd->base, sizeof wd->base, "%s", what);
  if (cb_fault_due(wd->fault, wd->rank, phase)) {
    char where[600];
    snprintf(where, sizeof where, "%s: %s", what, cb_phase_name(phase));
    cb_watchdog_disarm(wd); /* like a stopped rank: this rank's own watchdog stays quiet */
    cb_fault_act(wd->fault, where);
  }
  cb_watchdog_arm(wd, "%s: %s", what, cb_phase_name(phase));
}

void cb_watchdog_disarm(cb_watchdog_t *wd) {
  pthread_mutex_lock(&wd->lock);
  wd->armed = 0;
  pthread_mutex_unlock(&wd->lock);
}

/* After the thread has stopped sending: every rank learns how many messages each peer sent it
 * and receives exactly those, then cancels its last posted receive. */
static void drain(cb_watchdog_t *wd) {
  int n = wd->nranks;
  for (int p = 0; p < n; p++)
    if (wd->sreq[p] != MPI_REQUEST_NULL) CB_MPI(MPI_Wait(&wd->sreq[p], MPI_STATUS_IGNORE));
  long long *expect = xcalloc((size_t)n, sizeof(long long));
  CB_MPI(MPI_Alltoall(wd->nsent, 1, MPI_LONG_LONG, expect, 1, MPI_LONG_LONG, wd->comm));
  for (int p = 0; p < n; p++) {
    if (p == wd->rank) continue;
    while (wd->nrecv[p] < expect[p]) {
      CB_MPI(MPI_Wait(&wd->rreq[p], MPI_STATUS_IGNORE));
      if (++wd->nrecv[p] < expect[p])
        CB_MPI(MPI_Irecv(wd->rbuf + 2 * p, 2, MPI_LONG_LONG, p, ARRIVAL_TAG, wd->comm, &wd->rreq[p]));
    }
    if (wd->rreq[p] != MPI_REQUEST_NULL) {
      CB_MPI(MPI_Cancel(&wd->rreq[p]));
      CB_MPI(MPI_Wait(&wd->rreq[p], MPI_STATUS_IGNORE));
    }
  }
  free(expect);
  CB_MPI(MPI_Comm_free(&wd->comm));
}

void cb_watchdog_stop(cb_watchdog_t *wd) {
  if (!wd->running) return;
  pthread_mutex_lock(&wd->lock);
  wd->stop = 1;
  pthread_cond_signal(&wd->cond);
  pthread_mutex_unlock(&wd->lock);
  pthread_join(wd->thread, NULL);
  if (wd->exchange) drain(wd);
  free(wd->peer_step);
  free(wd->peer_heard);
  free(wd->sbuf);
  free(wd->rbuf);
  free(wd->sreq);
  free(wd->rreq);
  free(wd->nsent);
  free(wd->nrecv);
  pthread_mutex_destroy(&wd->lock);
  pthread_cond_destroy(&wd->cond);
  wd->running = 0;
}

/* The watchdog: turns a hang into an error on every rank that waits, and names who is missing.
 *
 * The bench engine enters every step that could block (setup, IPC exchange, warm-up, timed
 * round, correctness check, result reduction, teardown) with cb_watchdog_step, which arms a
 * deadline of -T seconds, and leaves it with cb_watchdog_disarm. Every rank enters the same
 * steps in the same order, so a step number identifies a step on all ranks.
 *
 * Arrival exchange: a watchdog thread on each rank sends its current step number to every peer
 * whenever it changes and as a heartbeat every 0.25 s (16-byte messages on a private duplicate
 * communicator; needs MPI_THREAD_MULTIPLE), and receives theirs. When a step misses its
 * deadline, the message names the step and the ranks that did not arrive (their step number is
 * behind), and ranks that fell silent (no heartbeat for over 2 s: stopped, dead or hung).
 *
 * Abort order (never destroy what another thread is using): the watchdog thread prints the
 * message and posts an abort request (error.h), which also sets the kernel abort word so custom
 * kernels stop spinning. The main thread, polling in every wait (MPI requests, stream queries),
 * takes the request and ends the job itself: ncclCommAbort, then MPI_Abort with exit code 4.
 * If the main thread is blocked inside a library call and has not taken the request within 1 s,
 * the watchdog thread ends the job without touching NCCL (MPI_Abort, then _exit if that hangs).
 * CUDA-free: the MPI tests on CPU ranks run it. */
#ifndef CB_WATCHDOG_H
#define CB_WATCHDOG_H

#include <mpi.h>
#include <pthread.h>

#include "fault.h"

typedef struct cb_watchdog {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int running, armed, stop;
  double timeout_s;
  double deadline; /* CLOCK_MONOTONIC seconds */
  long long step;  /* steps entered so far on this rank */
  char what[512];
  char base[512];    /* the step's subject without its phase, for cb_watchdog_phase */
  cb_fault_t *fault; /* may be NULL */
  /* arrival exchange (exchange = 0: single rank or no MPI_THREAD_MULTIPLE) */
  int exchange, rank, nranks;
  MPI_Comm comm;
  long long *peer_step;   /* last step number heard from each rank (-1: none yet) */
  double *peer_heard;     /* when (monotonic s); start time until the first message */
  long long *sbuf, *rbuf; /* 2 per rank: {step, heartbeat count} */
  MPI_Request *sreq, *rreq;
  long long *nsent, *nrecv, beats;
  long long sent_step;
  double last_beat;
  double last_tick, self_gap; /* this thread's own gaps: this process was stopped or starved */
} cb_watchdog_t;

/* Starts the thread. comm: the ranks to exchange arrivals with (collective over comm; a
 * duplicate is made), or MPI_COMM_NULL for none. fault: CB_FAULT (may be NULL). */
void cb_watchdog_start(cb_watchdog_t *wd, double timeout_s, MPI_Comm comm, cb_fault_t *fault);

/* Enters a step: the fault point for `phase` first (CB_FAULT may stall, stop or end this rank
 * here, before it arrives), then arms the deadline with "<what>: <phase name>". */
void cb_watchdog_step(cb_watchdog_t *wd, cb_phase_t phase, const char *what);

/* A new phase inside the current step's subject (an algorithm's setup entering its IPC
 * exchange): the fault point for `phase`, then a new step "<same subject>: <phase name>".
 * Does nothing while disarmed (outside the engine's steps). */
void cb_watchdog_phase(cb_watchdog_t *wd, cb_phase_t phase);

/* Arms with a free-form description (also a new step). */
void cb_watchdog_arm(cb_watchdog_t *wd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cb_watchdog_disarm(cb_watchdog_t *wd);

/* Stops the thread. Collective over the exchange communicator when there is one (drains every
 * arrival message so none is left unmatched at MPI_Finalize). */
void cb_watchdog_stop(cb_watchdog_t *wd);

/* The text of the missing-rank report for the current step (for tests and the message). */
void cb_watchdog_missing(cb_watchdog_t *wd, char *buf, size_t n);

#endif

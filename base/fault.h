/* Fault injection for tests (test-only; README "Testing the watchdog"): CB_FAULT makes one rank
 * stall, stop or exit at a chosen step, so the tests can prove that the watchdog ends the whole
 * job (exit 4, a message naming the step and the missing rank) and that finished rows survive.
 *
 *   CB_FAULT=ACTION:RANK:WHERE[:N]
 *   ACTION  stall  the rank's main thread sleeps forever (its watchdog disarmed, its heartbeat
 *                  still running: a live rank that stopped making progress)
 *           stop   the rank sends itself SIGSTOP (the whole process frozen, as `kill -STOP`)
 *           exit   the rank ends at once with _exit(CB_FAULT_EXIT_CODE) (a dead rank)
 *           wrong  (WHERE check only) the rank's check counts one wrong element more, as if its
 *                  GPU had produced one: the reporting of a wrong result (counts, footers,
 *                  exit codes) tested without a broken kernel
 *   RANK    world rank, 0..ranks-1 (checked once the world size is known)
 *   WHERE   setup | ipc | warmup | round | check | reduce   before the rank enters that step
 *           kernel  from that timed round on, the rank's custom kernels do not announce
 *                   themselves at their device barriers, so the peers' flag waits are never
 *                   satisfied (stall only: the host keeps running normally)
 *           nccl    in that timed round the rank does not call NCCL / launch the round, then
 *                   acts (stall/stop/exit) while its peers sit inside their NCCL kernels
 *   N       the N-th time the rank reaches WHERE (default 1), counted over the whole run
 *
 * Parsing is strict: anything else is a usage error (exit 2) before MPI starts. */
#ifndef CB_FAULT_H
#define CB_FAULT_H

#include <stddef.h>

#define CB_FAULT_EXIT_CODE 42

/* The steps the bench engine names in its watchdog messages, and the fault points. */
typedef enum cb_phase {
  CB_PHASE_SETUP,
  CB_PHASE_IPC,
  CB_PHASE_WARMUP,
  CB_PHASE_ROUND,
  CB_PHASE_CHECK,
  CB_PHASE_REDUCE,
  CB_PHASE_TEARDOWN,
  CB_PHASE_KERNEL, /* fault point only: device barriers */
  CB_PHASE_NCCL,   /* fault point only: the NCCL / launch calls of a timed round */
  CB_PHASE_COUNT
} cb_phase_t;

/* "timed round", "IPC exchange", ... for messages. */
const char *cb_phase_name(cb_phase_t p);

typedef enum cb_fault_action {
  CB_FAULT_NONE,
  CB_FAULT_STALL,
  CB_FAULT_STOP,
  CB_FAULT_EXIT,
  CB_FAULT_WRONG
} cb_fault_action_t;

typedef struct cb_fault {
  cb_fault_action_t action;
  int rank;
  cb_phase_t where;
  long nth;  /* fire on this occurrence (1-based) */
  long seen; /* occurrences so far on this rank */
} cb_fault_t;

/* Parses `text` (NULL or "" = no fault). Returns 0, or -1 with why naming the bad part. */
int cb_fault_parse(const char *text, cb_fault_t *f, char *why, size_t n);

/* Reads CB_FAULT from the environment into f; -1 with why (prefixed "CB_FAULT=...") when bad. */
int cb_fault_from_env(cb_fault_t *f, char *why, size_t n);

/* Counts one arrival of `rank` at `where`; returns 1 when the fault fires here (the caller
 * then calls cb_fault_act, or for CB_PHASE_KERNEL / NCCL does its part first). */
int cb_fault_due(cb_fault_t *f, int rank, cb_phase_t where);

/* Performs the action (stall and exit never return; stop returns once the process is
 * continued; wrong only announces itself). `what` names the step for the stderr line
 * announcing the fault. */
void cb_fault_act(const cb_fault_t *f, const char *what);

/* 1 when a wrong fault fired at the check step just reached (call right after that step's
 * cb_fault_due: the occurrence counted last is the one that fires). */
int cb_fault_wrong_now(const cb_fault_t *f, int rank);

#endif

/* Implementation of fault.h. */
#include "fault.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

static const char *const phase_names[CB_PHASE_COUNT] = {
    [CB_PHASE_SETUP] = "setup",       [CB_PHASE_IPC] = "IPC exchange",        [CB_PHASE_WARMUP] = "warm-up",
    [CB_PHASE_ROUND] = "timed round", [CB_PHASE_CHECK] = "correctness check", [CB_PHASE_REDUCE] = "result reduction",
    [CB_PHASE_TEARDOWN] = "teardown", [CB_PHASE_KERNEL] = "device barrier",   [CB_PHASE_NCCL] = "NCCL call",
};

/* The WHERE keywords of CB_FAULT, in cb_phase_t order (teardown is not a fault point). */
static const char *const where_words[CB_PHASE_COUNT] = {
    [CB_PHASE_SETUP] = "setup", [CB_PHASE_IPC] = "ipc",       [CB_PHASE_WARMUP] = "warmup", [CB_PHASE_ROUND] = "round",
    [CB_PHASE_CHECK] = "check", [CB_PHASE_REDUCE] = "reduce", [CB_PHASE_KERNEL] = "kernel", [CB_PHASE_NCCL] = "nccl",
};

const char *cb_phase_name(cb_phase_t p) { return (unsigned)p < CB_PHASE_COUNT ? phase_names[p] : "?"; }

/* A decimal integer in [lo, hi] filling the whole of s. */
static int parse_long(const char *s, long lo, long hi, long *out) {
  if (!isdigit((unsigned char)s[0])) return -1;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*end || errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int cb_fault_parse(const char *text, cb_fault_t *f, char *why, size_t n) {
  memset(f, 0, sizeof *f);
  if (!text || !text[0]) return 0;
  char buf[128];
  if (strlen(text) >= sizeof buf) {
    snprintf(why, n, "too long (expected ACTION:RANK:WHERE[:N])");
    return -1;
  }
  strcpy(buf, text);
  char *part[5] = {0};
  int np = 0;
  for (char *s = buf, *c; np < 5; s = c + 1) {
    part[np++] = s;
    if (!(c = strchr(s, ':'))) break;
    *c = 0;
  }
  if (np < 3 || np > 4) {
    snprintf(why, n, "expected ACTION:RANK:WHERE[:N], e.g. stall:1:round");
    return -1;
  }
  if (!strcmp(part[0], "stall")) f->action = CB_FAULT_STALL;
  else if (!strcmp(part[0], "stop")) f->action = CB_FAULT_STOP;
  else if (!strcmp(part[0], "exit")) f->action = CB_FAULT_EXIT;
  else if (!strcmp(part[0], "wrong")) f->action = CB_FAULT_WRONG;
  else {
    snprintf(why, n, "unknown action '%s' (accepted: stall, stop, exit, wrong)", part[0]);
    return -1;
  }
  long v;
  if (parse_long(part[1], 0, 1 << 20, &v)) {
    snprintf(why, n, "rank '%s' is not a rank number", part[1]);
    return -1;
  }
  f->rank = (int)v;
  f->where = CB_PHASE_COUNT;
  for (int p = 0; p < CB_PHASE_COUNT; p++)
    if (where_words[p] && !strcmp(part[2], where_words[p])) f->where = (cb_phase_t)p;
  if (f->where == CB_PHASE_COUNT) {
    snprintf(why, n, "unknown place '%s' (accepted: setup, ipc, warmup, round, check, reduce, kernel, nccl)", part[2]);
    return -1;
  }
  if (f->where == CB_PHASE_KERNEL && f->action != CB_FAULT_STALL) {
    snprintf(why, n, "'kernel' takes the action stall only (the rank's device barriers never complete)");
    return -1;
  }
  if (f->action == CB_FAULT_WRONG && f->where != CB_PHASE_CHECK) {
    snprintf(why, n, "'wrong' takes the place check only (a wrong element counted by the rank's check)");
    return -1;
  }
  f->nth = 1;
  if (np == 4 && parse_long(part[3], 1, 1000000000L, &f->nth)) {
    snprintf(why, n, "occurrence '%s' is not a positive integer", part[3]);
    return -1;
  }
  return 0;
}

int cb_fault_from_env(cb_fault_t *f, char *why, size_t n) {
  const char *s = getenv("CB_FAULT");
  char e[256] = "";
  if (s && !s[0]) { /* empty is no fault plan: an error, as for every CB_* knob (env.h) */
    snprintf(why, n, "CB_FAULT is set but empty: give ACTION:RANK:WHERE[:N] or unset it");
    return -1;
  }
  if (cb_fault_parse(s, f, e, sizeof e) == 0) return 0;
  snprintf(why, n, "CB_FAULT='%s': %s", s, e);
  return -1;
}

int cb_fault_due(cb_fault_t *f, int rank, cb_phase_t where) {
  if (!f || f->action == CB_FAULT_NONE || f->rank != rank || f->where != where) return 0;
  return ++f->seen == f->nth;
}

void cb_fault_act(const cb_fault_t *f, const char *what) {
  static const char *const verbs[] = {"", "stalls", "stops (SIGSTOP)", "exits", "counts one wrong element"};
  CB_WARN("CB_FAULT: rank %d %s at %s (test fault injection)", f->rank, verbs[f->action], what);
  switch (f->action) {
  case CB_FAULT_STALL:
    for (;;) pause();
  case CB_FAULT_STOP: raise(SIGSTOP); return;
  case CB_FAULT_EXIT: fflush(stdout); _exit(CB_FAULT_EXIT_CODE);
  case CB_FAULT_WRONG:
  case CB_FAULT_NONE: return;
  }
}

int cb_fault_wrong_now(const cb_fault_t *f, int rank) {
  return f && f->action == CB_FAULT_WRONG && f->rank == rank && f->where == CB_PHASE_CHECK && f->seen == f->nth;
}

/* What the command line said beyond the args struct (args.c fills it, args_finish.c reads it):
 * internal to the argument parser. */
#ifndef CB_ARGS_SEEN_H
#define CB_ARGS_SEEN_H

#include <stdint.h>

#include "args_values.h"

/* What the options said beyond the args struct: the size sweep's bounds, and what was given
 * (for the checks once the whole line is read). */
typedef struct cb_args_seen {
  uint64_t minb, maxb, step;
  double factor;
  int size, factor_given, step_given, bounds, list; /* -b/-e, -f, -i, --sizes */
  int points;                                       /* the family's point option */
  unsigned given;                                   /* bit i: the family's option i */
  unsigned foreign;                                 /* bit f: an option of family f, not this run's */
  int inplace;                                      /* --inplace */
  int graph_launches;                               /* -G N */
} cb_args_seen_t;

/* Step 3, once every option is read: another family's options refused, the sweep, the default
 * dtype and op, the in-place forms the family has, then the family's own checks (family.h
 * finish()). Returns CB_ARGS_OK or CB_ARGS_ERROR with the message in p. */
int cb_args_finish(cb_argp_t *p, cb_args_t *a, const cb_args_seen_t *s);

#endif

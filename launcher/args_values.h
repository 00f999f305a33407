/* The value parsers behind collbench's command line (args.c): numbers, comma lists, sweep
 * points and ranges, the data type / reduction / algorithm lists, the output-path clash check
 * and the metadata's command line. Internal to launcher/; every error is written through
 * cb_argp_fail so it names the option, the bad value and what is accepted. */
#ifndef CB_ARGS_VALUES_H
#define CB_ARGS_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"

/* Where a parse error goes (one line). */
typedef struct cb_argp {
  char *err;
  size_t errlen;
} cb_argp_t;

/* Formats the error into p and returns CB_ARGS_ERROR. */
int cb_argp_fail(cb_argp_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whole-string decimal parsers: 0, or -1 when s is not one (empty, trailing text, out of range;
 * cb_argp_u64 takes digits only, cb_argp_real finite values only). */
int cb_argp_int(const char *s, long lo, long hi, long *out);
int cb_argp_u64(const char *s, uint64_t *out);
int cb_argp_real(const char *s, double *out);

/* The error for a size past CB_MAX_BUFFER_BYTES. */
int cb_argp_too_large(cb_argp_t *p, const char *opt, const char *val);

/* Calls fn for each item of a comma list; an empty item is an error. */
typedef int (*cb_argp_item_fn)(cb_argp_t *p, cb_args_t *a, const char *item);
int cb_argp_each_item(cb_argp_t *p, cb_args_t *a, const char *opt, const char *list, cb_argp_item_fn fn);

/* One item of -d, -o and --algo: unknown names and repeats are errors. */
int cb_argp_add_dtype(cb_argp_t *p, cb_args_t *a, const char *s);
int cb_argp_add_op(cb_argp_t *p, cb_args_t *a, const char *s);
int cb_argp_add_algo(cb_argp_t *p, cb_args_t *a, const char *s);

/* a->points from a comma list (cb_argp_point_list) or, for cb_argp_range, also "A:B" / "A:B:F"
 * (geometric, factor F, default 2): the values of a family's point option (spec, family.h), or
 * sizes in bytes (spec NULL: K/M/G/T, at most CB_MAX_BUFFER_BYTES). Empty items and repeated
 * values are errors. */
int cb_argp_point_list(cb_argp_t *p, cb_args_t *a, const char *opt, const char *list, const cb_points_spec_t *spec);
int cb_argp_range(cb_argp_t *p, cb_args_t *a, const char *opt, const char *s, const cb_points_spec_t *spec);

/* --csv and --json (with the JSON's side files) must name different files. */
int cb_argp_check_outputs(cb_argp_t *p, const cb_args_t *a);

/* argv joined with spaces into out (cap bytes), cut at a UTF-8 character boundary. */
void cb_argp_join_cmdline(char *out, size_t cap, int argc, char **argv);

#endif

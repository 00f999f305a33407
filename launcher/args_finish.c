/* The checks of a finished command line (args_seen.h cb_args_finish): what every family shares
 * (the sweep from the size options or the family's point option, the default dtype and op, the
 * in-place forms, another family's options refused by name), then the family's own (family.h
 * finish()). */
#include <stdio.h>

#include "args_seen.h"

/* "--tokens/--hidden/.../--drop apply only to the moe family": family f's options given to
 * another family. */
static int refuse_foreign(cb_argp_t *p, cb_family_t f) {
  const cb_family_info_t *fi = cb_family_info(f);
  char list[512] = "";
  size_t off = 0;
  if (fi->points) off += (size_t)snprintf(list, sizeof list, "--%s", fi->points->option);
  for (int i = 0; i < fi->nopts && off < sizeof list; i++)
    off += (size_t)snprintf(list + off, sizeof list - off, "%s--%s", off ? "/" : "", fi->opts[i].name);
  return cb_argp_fail(p, "%s apply only to the %s family", list, fi->name);
}

/* Step 3, a family that sweeps bytes: the size sweep from -b/-e/-f/-i or --sizes. */
static int finish_sizes(cb_argp_t *p, cb_args_t *a, const cb_args_seen_t *s) {
  if (s->factor_given && s->step_given)
    return cb_argp_fail(p, "give either -f (step factor) or -i (step size), not both");
  if (s->list && (s->factor_given || s->step_given || s->bounds))
    return cb_argp_fail(p, "--sizes replaces -b/-e/-f/-i; give one or the other");
  if (s->list) return CB_ARGS_OK;
  double factor = s->step_given ? 0.0 : s->factor_given ? s->factor : 2.0;
  char why[256];
  int n =
      cb_sweep(s->minb, s->maxb, factor, s->step_given ? s->step : 0, a->points, CB_MAX_SWEEP_POINTS, why, sizeof why);
  if (n < 0) return cb_argp_fail(p, "size sweep: %s", why);
  a->npoints = n;
  return CB_ARGS_OK;
}

/* Step 3, a family with a point option of its own: no size options, its default sweep, every
 * value in its range (a range's points are checked here). */
static int finish_points(cb_argp_t *p, cb_args_t *a, const cb_family_info_t *fi, const cb_args_seen_t *s) {
  const cb_points_spec_t *ps = fi->points;
  if (s->size)
    return cb_argp_fail(p, "%s sweeps %s: use --%s instead of -b/-e/-f/-i/--sizes", fi->name, ps->sweeps, ps->option);
  if (!s->points) {
    char why[256];
    int n = cb_sweep(ps->first, ps->last, 2.0, 0, a->points, CB_MAX_SWEEP_POINTS, why, sizeof why);
    if (n < 0) return cb_argp_fail(p, "--%s: %s", ps->option, why);
    a->npoints = n;
  }
  for (int i = 0; i < a->npoints; i++)
    if (a->points[i] < ps->min || a->points[i] > ps->max)
      return cb_argp_fail(p, "--%s: %llu is not a %s %llu..%llu", ps->option, (unsigned long long)a->points[i],
                          ps->noun, (unsigned long long)ps->min, (unsigned long long)ps->max);
  return CB_ARGS_OK;
}

int cb_args_finish(cb_argp_t *p, cb_args_t *a, const cb_args_seen_t *s) {
  const cb_family_info_t *fi = cb_family_info(a->family);
  for (int f = 0; f < CB_NFAMILIES; f++)
    if (s->foreign & (1u << f)) return refuse_foreign(p, (cb_family_t)f);
  int rc = fi->points ? finish_points(p, a, fi, s) : finish_sizes(p, a, s);
  if (rc) return rc;
  if (!a->ndtypes) a->dtypes[a->ndtypes++] = fi->default_dtype;
  if (!fi->reduces) {
    a->nops = 1;
    a->ops[0] = CB_OP_NONE;
  } else if (!a->nops) {
    a->nops = 1;
    a->ops[0] = CB_SUM;
  }
  if (!fi->has_inplace) {
    if (fi->no_inplace_why && s->inplace && (a->places & CB_PLACE_IN))
      return cb_argp_fail(p, "--inplace: %s has no in-place form (%s); leave it out or give 0", fi->name,
                          fi->no_inplace_why);
    if (a->places == CB_PLACE_IN) return cb_argp_fail(p, "--inplace 1: %s has no in-place form", fi->name);
    a->places = CB_PLACE_OUT;
  }
  if (!fi->finish) return CB_ARGS_OK;
  cb_family_finish_t ff = {.config = cb_args_config(a),
                           .given = s->given,
                           .cmdline = a->cmdline,
                           .check_iters = a->check_iters,
                           .dtypes = a->dtypes,
                           .ndtypes = a->ndtypes,
                           .points = a->points,
                           .npoints = a->npoints,
                           .algos = a->algos,
                           .nalgos = &a->nalgos,
                           .max_algos = CB_MAX_ALGOS,
                           .err = p->err,
                           .errlen = p->errlen};
  return fi->finish(&ff) ? CB_ARGS_ERROR : CB_ARGS_OK;
}

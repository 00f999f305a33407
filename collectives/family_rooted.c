/* The describers of the rooted collectives (family.h): broadcast, reduce, gather and scatter, as
 * nccl-tests 2.19 measures them (src/broadcast.cu, reduce.cu, gather.cu, scatter.cu). They sweep
 * bytes like the classic families, take the root with -r/--root (rooted.h: the root is the
 * group's variant, so -r -1 walks every root) and write it in their rows' root column.
 *
 *   family     size column             count column    busbw        send      recv      checked on
 *   broadcast  bytes                   bytes/elem      algbw x 1    c         c         every rank
 *   reduce     bytes                   bytes/elem      algbw x 1    c         c         the root
 *   gather     n x c x elem            c (chunk)       (n-1)/n      c         n x c     the root
 *   scatter    n x c x elem            c (chunk)       (n-1)/n      n x c     c         every rank
 * with c = cb_rooted_chunk (nccl-tests rounds the per-rank chunk down to 16 bytes). Broadcast and
 * reduce move the whole buffer through the root's link, hence factor 1 (doc/PERFORMANCE.md);
 * gather and scatter move (n-1) of the n chunks through it. */
#include <stdio.h>

#include "check_layout.h"
#include "decimal.h"
#include "family.h"
#include "rooted.h"
#include "row.h"

enum { O_ROOT, O_COUNT };
static const cb_family_opt_t opts[O_COUNT] = {[O_ROOT] = {"root", 1}};

size_t cb_rooted_chunk(size_t elements, size_t elem_size, int nranks) {
  size_t per = elements / (size_t)nranks, align = elem_size < 16 ? 16 / elem_size : 1;
  return per & ~(align - 1);
}

int cb_chunked_plan(cb_params_t *p, int nranks, char *why, size_t nwhy) {
  size_t es = cb_dtype_size(p->dtype);
  p->bytes = p->point;
  if (cb_family_count(p->family, p->point, es, nranks, &p->elements, &p->count, why, nwhy)) return -1;
  size_t elements = p->elements;
  p->count = cb_rooted_chunk(elements, es, nranks);
  p->elements = p->count * (size_t)nranks;
  p->bytes = p->elements * es;
  /* nccl-tests times an empty call there; an empty row says nothing and has no place on a log
   * axis (plots/): the size columns stay nccl-tests' (0, 0), the row says why it did not run */
  if (p->count == 0) {
    snprintf(why, nwhy, "%zu elements over %d ranks round to 0 per rank (nccl-tests' 16-byte chunks)", elements,
             nranks);
    return -1;
  }
  return 0;
}

static void defaults(void *config) { ((cb_rooted_config_t *)config)->root = 0; }

static int option(void *config, int i, const char *arg, const char *val, char *err, size_t n) {
  long v;
  if (i != O_ROOT || cb_decimal_long(val, -1, CB_ROOTS_MAX - 1, &v)) {
    snprintf(err, n, "%s: '%s' is not a root rank (0..%d, or -1 for every root in turn)", arg, val, CB_ROOTS_MAX - 1);
    return -1;
  }
  ((cb_rooted_config_t *)config)->root = (int)v;
  return 0;
}

static int check_ranks(const void *config, int nranks, const cb_dtype_t *dtypes, int ndtypes, char *why, size_t n) {
  int root = ((const cb_rooted_config_t *)config)->root;
  if (root >= nranks) {
    snprintf(why, n, "-r %d: the root must be a rank 0..%d (%d ranks), or -1 for every root in turn", root, nranks - 1,
             nranks);
    return -1;
  }
  if (root < 0 && nranks > CB_ROOTS_MAX) {
    snprintf(why, n, "-r -1: every root in turn is offered up to %d ranks (%d ranks); give one root", CB_ROOTS_MAX,
             nranks);
    return -1;
  }
  return 0;
}

/* variant v is root v: the one given, or every rank with -r -1 */
static int variant_on(const void *config, int v, int nranks) {
  int root = ((const cb_rooted_config_t *)config)->root;
  return root < 0 ? v < nranks : v == root;
}

static void nvtx_variant(const void *config, int v, char *buf, size_t n) { snprintf(buf, n, "-root%d", v); }

static int plan_whole(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy) {
  p->bytes = p->point;
  snprintf(what, nwhat, "%s %s %s %llu B %s %s root %d", cb_family_name(p->family), cb_dtype_name(p->dtype),
           cb_redop_name(p->op), (unsigned long long)p->bytes, p->inplace ? "in-place" : "out-of-place", mode,
           cb_rooted_root(p));
  return cb_family_count(p->family, p->bytes, cb_dtype_size(p->dtype), nranks, &p->elements, &p->count, why, nwhy);
}

static int plan_chunked(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why,
                        size_t nwhy) {
  int rc = cb_chunked_plan(p, nranks, why, nwhy);
  snprintf(what, nwhat, "%s %s %s %llu B %s %s root %d", cb_family_name(p->family), cb_dtype_name(p->dtype),
           cb_redop_name(p->op), (unsigned long long)p->bytes, p->inplace ? "in-place" : "out-of-place", mode,
           cb_rooted_root(p));
  return rc;
}

static void row(const cb_row_ctx_t *c, cb_row_t *r) { cb_row_int(r, CB_COL_ROOT, cb_rooted_root(c->p)); }

/* One section of --help for the four (broadcast's describer carries it). */
static const char help[] = "rooted families (broadcast, reduce, gather, scatter):\n"
                           "  -r, --root N            the root rank (default 0); -1: every root in turn, as "
                           "nccl-tests\n";

#define CB_ROOTED                                                                                                \
  .default_dtype = CB_FLOAT, .nvtx_letter = 'B', .has_inplace = 1, .opts = opts, .nopts = O_COUNT,               \
  .config_size = sizeof(cb_rooted_config_t), .defaults = defaults, .option = option, .check_ranks = check_ranks, \
  .nvariants = CB_ROOTS_MAX, .variant_on = variant_on, .nvtx_variant = nvtx_variant, .columns = CB_COLS_ROOT,    \
  .table = &cb_rooted_table, .row = row, .rooted = 1, .busbw_num = 1.0

/* broadcast's output is the root's input on every rank: the engine also compares digests */
const cb_family_info_t cb_family_broadcast = {.name = "broadcast",
                                              CB_ROOTED,
                                              .help = help,
                                              .plan = plan_whole,
                                              .identical_outputs = 1,
                                              .busbw_den_adj = 1.0,
                                              .layout = CB_LAYOUT_BROADCAST};
const cb_family_info_t cb_family_reduce = {
    .name = "reduce", CB_ROOTED, .reduces = 1, .plan = plan_whole, .busbw_den_adj = 1.0, .layout = CB_LAYOUT_REDUCE};
const cb_family_info_t cb_family_gather = {
    .name = "gather", CB_ROOTED, .plan = plan_chunked, .layout = CB_LAYOUT_GATHER, .recv_all = 1};
const cb_family_info_t cb_family_scatter = {
    .name = "scatter", CB_ROOTED, .plan = plan_chunked, .layout = CB_LAYOUT_SCATTER, .send_all = 1};

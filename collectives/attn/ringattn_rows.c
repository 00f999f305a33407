/* The registry's ringattn rows: every scheme of ringattn_schemes.h with each block kernel of
 * ringattn_block_kernel.h, one cb_algo_t per pair (single, single_cudnn, ring, ring_cudnn, ...).
 * A row's supported() and setup() hand its pair to ringattn_row.c; run(), check() and measure()
 * dispatch its pass (ringattn_pass.c). Nothing here is written per scheme: its line in
 * CB_RA_SCHEMES is all a scheme needs. */
#include <stddef.h>

#include "attn_block.h"
#include "collective.h"
#include "ringattn_pass.h"
#include "ringattn_row.h"
#include "ringattn_schemes.h"

#define SCHEME_DECL(name, ...) extern const cb_ra_scheme_t cb_ra_scheme_##name;
CB_RA_SCHEMES(SCHEME_DECL)
CB_RA_SCHEMES(CB_RA_ROW_DECLS)

/* The scheme `scheme` with the block kernel cb_ra_block_<block>, registered as
 * cb_algo_ringattn_<row> under the name `scheme` + suffix. */
#define ROW(scheme, row, block, suffix, measure_fn, text)                                      \
  static int row##_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) { \
    return cb_ra_row_supported(&cb_ra_scheme_##scheme, &cb_ra_block_##block, w, p, why, n);    \
  }                                                                                            \
  static int row##_setup(cb_inst_t *in, char *why, size_t n) {                                 \
    return cb_ra_row_setup(&cb_ra_scheme_##scheme, &cb_ra_block_##block, in, why, n);          \
  }                                                                                            \
  const cb_algo_t cb_algo_ringattn_##row = {                                                   \
      .name = #scheme suffix,                                                                  \
      .family = CB_RINGATTN,                                                                   \
      .summary = text,                                                                         \
      .dtypes = CB_DT(CB_BF16) | CB_DT(CB_HALF),                                               \
      .nphases = 1,                                                                            \
      .graph_ok = 1,                                                                           \
      .supported = row##_supported,                                                            \
      .setup = row##_setup,                                                                    \
      .run = cb_ra_run,                                                                        \
      .check = cb_ra_check,                                                                    \
      .teardown = cb_ra_row_teardown,                                                          \
      .measure = measure_fn,                                                                   \
  };

/* A scheme's line: its row with collbench's block kernel, then with cuDNN's. */
#define ROWS(scheme, measure_fn, summary, summary_cudnn)  \
  ROW(scheme, scheme, collbench, "", measure_fn, summary) \
  ROW(scheme, scheme##_cudnn, cudnn, CB_ATTN_CUDNN_SUFFIX, measure_fn, summary_cudnn)

CB_RA_SCHEMES(ROWS)

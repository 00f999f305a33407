/* CPU test of the cuDNN rows in a build without cuDNN: this program links
 * cudnn/attn_cudnn_none.c (what CMake builds when cuDNN is not found or -DCB_CUDNN=OFF) with the
 * whole attention wing (collectives/attn/), so the registry's real rows are checked without
 * configuring a second build: every cuDNN row says "not available: built without cuDNN" (after
 * the shape checks every ringattn row makes), for every pass, the metadata says the same, and the
 * context cannot be made; the backward (attn_cudnn_bwd.h) likewise: its plans cannot be made.
 * collbench's rows keep every pass: only the block kernel differs between a scheme's two rows
 * (its supported() alone refuses; collbench's entry has none). No GPU call is reached. */
#include <stdio.h>
#include <string.h>

#include "attn_cudnn.h"
#include "attn_cudnn_bwd.h"
#include "attn_variant.h"
#include "cb_testing.h"
#include "ringattn_block_kernel.h"
#include "ringattn_schemes.h"

CB_RA_SCHEMES(CB_RA_ROW_DECLS)
#define COLLBENCH_ROW(name, ...) &cb_algo_ringattn_##name,
#define CUDNN_ROW(name, ...) &cb_algo_ringattn_##name##_cudnn,
static const cb_algo_t *const collbench_rows[] = {CB_RA_SCHEMES(COLLBENCH_ROW) NULL};
static const cb_algo_t *const cudnn_rows[] = {CB_RA_SCHEMES(CUDNN_ROW) NULL};

static void test_binding(void) {
  char why[512] = "";
  CHECK(cb_cudnn_available(why, sizeof why) == 0, "available without cuDNN");
  CHECK_EQ_STR(why, "not available: built without cuDNN");
  CHECK(cb_cudnn_version(why, sizeof why) == 0, "version without cuDNN");
  CHECK_EQ_STR(why, CB_ATTN_NO_CUDNN);
  cb_cudnn_t *ctx = (cb_cudnn_t *)&why;
  CHECK(cb_cudnn_create(&ctx, why, sizeof why) == -1 && ctx == NULL, "context without cuDNN");
  CHECK_EQ_STR(why, CB_ATTN_NO_CUDNN);
  cb_cudnn_key_t k = {1, 4, 4, 64, 128, 128, 128, 128, 1, 0, 0};
  CHECK(cb_cudnn_prepare(NULL, &k, why, sizeof why) == -1, "plan without cuDNN");
  CHECK_EQ_INT(cb_cudnn_mem(NULL), 0);
  why[0] = 0;
  CHECK(cb_cudnn_bwd_supported(why, sizeof why) == 0, "backward without cuDNN");
  CHECK_EQ_STR(why, CB_ATTN_NO_CUDNN);
  why[0] = 0;
  CHECK(cb_cudnn_prepare_bwd(NULL, &k, why, sizeof why) == -1, "backward plan without cuDNN");
  CHECK_EQ_STR(why, CB_ATTN_NO_CUDNN);
}

static void test_rows(void) {
  static cb_world_t w;
  w.peer_ok = 1; /* one node, peer access: the ring's own checks pass */
  w.mpi.nnodes = 1;
  cb_attn_config_t cfg;
  cb_attn_defaults(&cfg);
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = CB_RINGATTN;
  p.dtype = CB_BF16;
  p.config = &cfg;
  p.point = 4096;
  int nrows = 0;
  for (int i = 0; cudnn_rows[i]; i++, nrows++) {
    char want[64];
    snprintf(want, sizeof want, "%s_cudnn", collbench_rows[i]->name);
    CHECK_EQ_STR(cudnn_rows[i]->name, want);
  }
  CHECK_EQ_INT(nrows, 6);
  const int passes[3] = {CB_ATTN_PASS_FWD, CB_ATTN_PASS_BWD, CB_ATTN_PASS_BOTH};
  for (int nranks = 1; nranks <= 8; nranks *= 2)
    for (int causal = 0; causal <= 1; causal++)
      for (int k = 0; k < 3; k++)
        for (int i = 0; cudnn_rows[i]; i++) {
          char why[512] = "";
          w.mpi.nranks = nranks;
          p.variant = cb_attn_variant_index((cb_attn_variant_t){causal, cb_attn_default_layout(causal), 0, 0});
          cfg.pass = passes[k];
          CHECK(cudnn_rows[i]->supported(&w, &p, why, sizeof why) == 0, "%s supported without cuDNN",
                cudnn_rows[i]->name);
          CHECK_EQ_STR(why, "not available: built without cuDNN");
          why[0] = 0;
          CHECK(collbench_rows[i]->supported(&w, &p, why, sizeof why) == 1, "%s, %d ranks, causal %d, pass %d: %s",
                collbench_rows[i]->name, nranks, causal, passes[k], why);
          /* the block kernel's own part says the same */
          CHECK(cb_ra_block_cudnn.supported(&w, &p, nranks, why, sizeof why) == 0, "the cuDNN block kernel");
          CHECK_EQ_STR(why, CB_ATTN_NO_CUDNN);
        }
  CHECK(cb_ra_block_collbench.supported == NULL, "collbench's block kernel adds no check");
  /* the shape checks of every ringattn row come first */
  cfg.pass = CB_ATTN_PASS_FWD;
  p.dtype = CB_FLOAT;
  for (int i = 0; cudnn_rows[i]; i++) {
    char why[512] = "";
    CHECK(cudnn_rows[i]->supported(&w, &p, why, sizeof why) == 0, "%s float", cudnn_rows[i]->name);
    CHECK_CONTAINS(why, "ringattn supports bfloat16 and half");
  }
}

int main(void) {
  test_binding();
  test_rows();
  return cb_test_finish("test_cudnn_none");
}

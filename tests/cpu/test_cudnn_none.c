/* CPU test of the cuDNN rows in a build without cuDNN: this program links
 * collectives/attn_cudnn_none.c (what CMake builds when cuDNN is not found or -DCB_CUDNN=OFF)
 * with the real supported() of the cuDNN rows (collectives/ringattn_cudnn.c), so the row text
 * is checked without configuring a second build: every cuDNN row says "not available: built
 * without cuDNN" (after the shape checks every ringattn row makes), the metadata says the same,
 * and the context cannot be made; the backward (attn_cudnn_bwd.h) likewise: its plans cannot
 * be made, and --pass bwd and both refuse the cuDNN rows with the same text (collbench's rows
 * keep every pass). No GPU call is reached. */
#include <stdio.h>
#include <string.h>

#include "attn_block.h"
#include "attn_cudnn.h"
#include "attn_cudnn_bwd.h"
#include "cb_testing.h"
#include "ringattn_common.h"

int main(void) {
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

  static cb_world_t w;
  cb_attn_config_t cfg;
  cb_attn_defaults(&cfg);
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = CB_RINGATTN;
  p.dtype = CB_BF16;
  p.config = &cfg;
  for (int nranks = 1; nranks <= 8; nranks *= 2)
    for (int causal = 0; causal <= 1; causal++)
      for (int full = 0; full <= 1; full++) {
        w.mpi.nranks = nranks;
        p.variant = causal;
        p.point = 4096;
        why[0] = 0;
        CHECK(cb_ra_cudnn_supported(&w, &p, full, why, sizeof why) == 0, "supported without cuDNN");
        CHECK_EQ_STR(why, "not available: built without cuDNN");
        CHECK(cb_ra_supported_cudnn(&w, &p, why, sizeof why) == 0, "ring forms");
        CHECK_EQ_STR(why, "not available: built without cuDNN");
      }
  /* --pass: the backward of a cuDNN row says the same; collbench's rows and the forward run */
  const int passes[3] = {CB_ATTN_PASS_FWD, CB_ATTN_PASS_BWD, CB_ATTN_PASS_BOTH};
  for (int i = 0; i < 3; i++) {
    cfg.pass = passes[i];
    why[0] = 0;
    const int want = passes[i] == CB_ATTN_PASS_FWD;
    CHECK_EQ_INT(cb_ra_pass_supported(&p, 1, why, sizeof why), want);
    if (!want) CHECK_EQ_STR(why, "not available: built without cuDNN");
    CHECK_EQ_INT(cb_ra_pass_supported(&p, 0, why, sizeof why), 1);
  }
  cfg.pass = CB_ATTN_PASS_FWD;
  /* the shape checks of every ringattn row come first */
  p.dtype = CB_FLOAT;
  CHECK(cb_ra_cudnn_supported(&w, &p, 0, why, sizeof why) == 0, "float");
  CHECK_CONTAINS(why, "ringattn supports bfloat16 and half");
  return cb_test_finish("test_cudnn_none");
}

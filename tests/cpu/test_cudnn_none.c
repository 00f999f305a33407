/* CPU test of the cuDNN rows in a build without cuDNN: this program links
 * collectives/attn_cudnn_none.c (what CMake builds when cuDNN is not found or -DCB_CUDNN=OFF)
 * with the real supported() of the cuDNN rows (collectives/ringattn_cudnn.c), so the row text
 * is checked without configuring a second build: every cuDNN row says "not available: built
 * without cuDNN" (after the shape checks every ringattn row makes), the metadata says the same,
 * and the context cannot be made. No GPU call is reached. */
#include <stdio.h>
#include <string.h>

#include "attn_block.h"
#include "attn_cudnn.h"
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
  cb_cudnn_key_t k = {1, 4, 4, 64, 128, 128, 128, 128, 1, 0};
  CHECK(cb_cudnn_prepare(NULL, &k, why, sizeof why) == -1, "plan without cuDNN");
  CHECK_EQ_INT(cb_cudnn_mem(NULL), 0);

  static cb_world_t w;
  cb_attn_config_t cfg;
  cb_attn_defaults(&cfg);
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = CB_RINGATTN;
  p.dtype = CB_BF16;
  p.attn = &cfg;
  for (int nranks = 1; nranks <= 8; nranks *= 2)
    for (int causal = 0; causal <= 1; causal++)
      for (int full = 0; full <= 1; full++) {
        w.mpi.nranks = nranks;
        p.causal = causal;
        p.seq = 4096;
        why[0] = 0;
        CHECK(cb_ra_cudnn_supported(&w, &p, full, why, sizeof why) == 0, "supported without cuDNN");
        CHECK_EQ_STR(why, "not available: built without cuDNN");
        CHECK(cb_ra_supported_cudnn(&w, &p, why, sizeof why) == 0, "ring forms");
        CHECK_EQ_STR(why, "not available: built without cuDNN");
      }
  /* the shape checks of every ringattn row come first */
  p.dtype = CB_FLOAT;
  CHECK(cb_ra_cudnn_supported(&w, &p, 0, why, sizeof why) == 0, "float");
  CHECK_CONTAINS(why, "ringattn supports bfloat16 and half");
  return cb_test_finish("test_cudnn_none");
}

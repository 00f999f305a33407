/* CPU test of the ringattn block-kernel choice (collectives/attn/attn_block.c): the values of
 * --block-kernel, the scheme list, and the limits of the row expansion (which rows each
 * --algo / --block-kernel command line gives: test_attn_config.c). */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "attn_block.h"
#include "cb_testing.h"

static void test_parse(void) {
  int bits = 0;
  CHECK(cb_attn_block_parse("collbench", &bits) == 0 && bits == CB_ATTN_BLOCK_COLLBENCH, "collbench");
  CHECK(cb_attn_block_parse("cudnn", &bits) == 0 && bits == CB_ATTN_BLOCK_CUDNN, "cudnn");
  CHECK(cb_attn_block_parse("both", &bits) == 0 && bits == (CB_ATTN_BLOCK_COLLBENCH | CB_ATTN_BLOCK_CUDNN), "both");
  const char *bad[] = {"", "CUDNN", "cudnn ", "collbench,cudnn", "none", "0", "1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(cb_attn_block_parse(bad[i], &bits) == -1, "'%s'", bad[i]);
  CHECK(cb_attn_block_is_cudnn("ring_cudnn"), "ring_cudnn");
  CHECK(cb_attn_block_is_cudnn("single_cudnn"), "single_cudnn");
  CHECK(!cb_attn_block_is_cudnn("ring"), "ring");
  CHECK(!cb_attn_block_is_cudnn("_cudnn"), "the suffix alone names nothing");
  CHECK(!cb_attn_block_is_cudnn("ring_cudnnx"), "ring_cudnnx");
  /* the schemes the registry must hold in both forms (tests/cpu/test_block_kernel_cli.py) */
  const char *want[] = {"single", "ring", "nccl_ring", "nccl_allgather", "ulysses", "nccl_ulysses"};
  int k = 0;
  for (; cb_attn_schemes[k]; k++) CHECK(k < 6 && strcmp(cb_attn_schemes[k], want[k]) == 0, "scheme %d", k);
  CHECK_EQ_INT(k, 6);
}

static void test_expansion_limits(void) {
  char in[CB_MAX_ALGOS][CB_ATTN_NAME_MAX], out[CB_MAX_ALGOS][CB_ATTN_NAME_MAX], why[256];
  int nout = -1;
  for (int i = 0; i < 9; i++) snprintf(in[i], sizeof in[i], "x%d", i);
  snprintf(in[0], sizeof in[0], "ring");
  /* 9 names of which one scheme: 10 rows fit 16 */
  CHECK(cb_attn_block_algos((const char(*)[CB_ATTN_NAME_MAX])in, 9, 3, 1, out, CB_MAX_ALGOS, &nout, why, sizeof why) ==
            0,
        "%s", why);
  CHECK_EQ_INT(nout, 10);
  /* the same into room for 4: an error, not a silent cut */
  CHECK(cb_attn_block_algos((const char(*)[CB_ATTN_NAME_MAX])in, 9, 3, 1, out, 4, &nout, why, sizeof why) == -1, "cap");
  CHECK_CONTAINS(why, "more than 4 rows");
  /* a scheme name whose cuDNN form would not fit the name length */
  snprintf(in[0], sizeof in[0], "%s", "nccl_allgather");
  CHECK(cb_attn_block_algos((const char(*)[CB_ATTN_NAME_MAX])in, 1, 2, 1, out, 4, &nout, why, sizeof why) == 0, "%s",
        why);
  CHECK_EQ_STR(out[0], "nccl_allgather_cudnn");
  CHECK(cb_attn_block_algos((const char(*)[CB_ATTN_NAME_MAX])in, 1, 0, 1, out, 4, &nout, why, sizeof why) == -1,
        "none");
}

int main(void) {
  test_parse();
  test_expansion_limits();
  return cb_test_finish("test_attn_block");
}

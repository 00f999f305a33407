/* CPU test of the ringattn configuration (collectives/attn_config.c) and its command line
 * (launcher/args.c): defaults, every option, the zigzag shard layout (every position held by
 * exactly one rank, both chunks of a rank the same length, balanced causal work), the FLOP
 * count, the rows --algo and --block-kernel give, and every bad input the family promises to
 * reject with a message naming it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "attn_block.h"
#include "attn_config.h"
#include "cb_testing.h"

static cb_args_t A;
static char err[1024];

static int parse(const char *line) {
  static char buf[4096];
  char *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "collbench";
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && argc < 63; tok = strtok_r(NULL, " ", &save))
    argv[argc++] = tok;
  argv[argc] = NULL;
  memset(err, 0, sizeof err);
  return cb_args_parse(argc, argv, &A, err, sizeof err);
}

static void expect_error(const char *cmd, const char *needle) {
  int rc = parse(cmd);
  CHECK(rc == CB_ARGS_ERROR, "'%s' accepted", cmd);
  CHECK(strstr(err, needle) != NULL, "'%s': message '%s' lacks '%s'", cmd, err, needle);
}

static void test_cli(void) {
  CHECK_EQ_INT(parse("ringattn"), CB_ARGS_OK);
  CHECK_EQ_INT(A.family, CB_RINGATTN);
  CHECK_EQ_INT(A.ndtypes, 1);
  CHECK_EQ_INT(A.dtypes[0], CB_BF16);
  CHECK_EQ_INT(A.npoints, 4); /* 8K, 16K, 32K, 64K */
  CHECK(A.points[0] == 8192 && A.points[3] == 65536, "default --seq sweep");
  CHECK_EQ_INT(A.attn.batch, 1);
  CHECK_EQ_INT(A.attn.heads, 32);
  CHECK_EQ_INT(A.attn.kv_heads, 32);
  CHECK_EQ_INT(A.attn.head_dim, 128);
  CHECK_EQ_INT(A.attn.causal_modes, CB_ATTN_CAUSAL | CB_ATTN_NONCAUSAL);
  CHECK_EQ_INT(A.places, CB_PLACE_OUT);

  CHECK_EQ_INT(parse("ringattn --seq 1000,4K -d half --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --causal 1 "
                     "--save /tmp/x"),
               CB_ARGS_OK);
  CHECK_EQ_INT(A.npoints, 2);
  CHECK(A.points[0] == 1000 && A.points[1] == 4096, "--seq list with K");
  CHECK_EQ_INT(A.dtypes[0], CB_HALF);
  CHECK_EQ_INT(A.attn.batch, 2);
  CHECK_EQ_INT(A.attn.heads, 8);
  CHECK_EQ_INT(A.attn.kv_heads, 2);
  CHECK_EQ_INT(A.attn.head_dim, 64);
  CHECK_EQ_INT(A.attn.causal_modes, CB_ATTN_CAUSAL);
  CHECK_EQ_STR(A.attn.save_dir, "/tmp/x");

  CHECK_EQ_INT(parse("ringattn --seq 16K:128K --causal 0"), CB_ARGS_OK);
  CHECK_EQ_INT(A.npoints, 4);
  CHECK(A.points[3] == 131072, "--seq range");
  CHECK_EQ_INT(A.attn.causal_modes, CB_ATTN_NONCAUSAL);
  /* --heads alone: plain multi-head attention */
  CHECK_EQ_INT(parse("ringattn --heads 12"), CB_ARGS_OK);
  CHECK_EQ_INT(A.attn.kv_heads, 12);

  expect_error("ringattn --heads 8 --kv-heads 3", "does not divide");
  expect_error("ringattn --head-dim 96", "not supported");
  expect_error("ringattn --head-dim 0", "--head-dim");
  expect_error("ringattn -d float", "bfloat16 and half");
  expect_error("ringattn -d fp8e4m3", "bfloat16 and half");
  expect_error("ringattn --causal 2", "--causal");
  expect_error("ringattn --causal yes", "--causal");
  expect_error("ringattn --seq 0", "--seq");
  expect_error("ringattn --seq abc", "--seq");
  expect_error("ringattn --seq 8K:1K:1", "--seq");
  expect_error("ringattn -b 8 -e 1M", "--seq");
  expect_error("ringattn --sizes 1M", "--seq");
  expect_error("ringattn --tokens 128", "moe");
  expect_error("ringattn --batch -1", "--batch");
  expect_error("allreduce --seq 8K", "only to the ringattn family");
  /* near 2^64, past the sequence bound, not UTF-8, very long */
  expect_error("ringattn --seq 18446744073709551615", "is not a sequence length 1..1073741824");
  expect_error("ringattn --seq 18446744073709551616", "is not a size");
  expect_error("ringattn --seq 2G", "is not a sequence length");
  expect_error("ringattn --seq 16K:18446744073709551615", "is not a sequence length");
  expect_error("ringattn --seq \xff\xfe", "--seq");
  expect_error("ringattn --heads 99999999999999999999", "--heads");
  static char longseq[5000];
  memset(longseq, '1', sizeof longseq - 1);
  char line[5100];
  snprintf(line, sizeof line, "ringattn --seq %s", longseq);
  expect_error(line, "--seq");
  snprintf(line, sizeof line, "ringattn --save %s", longseq);
  expect_error(line, "--save");
  expect_error("moe --heads 8", "only to the ringattn family");
}

/* The parsed --algo list joined with ",", "" for none (= every algorithm of the family). */
static const char *algos(void) {
  static char buf[1024];
  buf[0] = 0;
  for (int i = 0; i < A.nalgos; i++) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "," : "", A.algos[i]);
  return buf;
}

static void expect_algos(const char *cmd, const char *want) {
  int rc = parse(cmd);
  CHECK(rc == CB_ARGS_OK, "'%s' rejected: %s", cmd, err);
  CHECK(strcmp(algos(), want) == 0, "'%s' gives '%s', expected '%s'", cmd, algos(), want);
}

/* --block-kernel (collectives/attn_block.h): the rows of each --algo / --block-kernel combination. */
static void test_block_kernel(void) {
  /* default: both kernels, every algorithm of the family */
  expect_algos("ringattn", "");
  CHECK_EQ_INT(A.attn.block_kernels, CB_ATTN_BLOCK_COLLBENCH | CB_ATTN_BLOCK_CUDNN);
  expect_algos("ringattn --block-kernel both", "");
  expect_algos("ringattn --block-kernel collbench", "single,ring,nccl_ring,nccl_allgather");
  expect_algos("ringattn --block-kernel=cudnn", "single_cudnn,ring_cudnn,nccl_ring_cudnn,nccl_allgather_cudnn");
  /* --algo alone names rows exactly */
  expect_algos("ringattn --algo ring", "ring");
  expect_algos("ringattn --algo ring_cudnn,single", "ring_cudnn,single");
  /* with --block-kernel, scheme names become their rows */
  expect_algos("ringattn --algo ring,single --block-kernel both", "ring,ring_cudnn,single,single_cudnn");
  expect_algos("ringattn --algo ring --block-kernel cudnn", "ring_cudnn");
  expect_algos("ringattn --block-kernel cudnn --algo nccl_ring", "nccl_ring_cudnn");
  expect_algos("ringattn --algo ring_cudnn,ring --block-kernel both", "ring_cudnn,ring");
  expect_algos("ringattn --algo ring_cudnn --block-kernel cudnn", "ring_cudnn");
  /* --algo help stays help; unknown names are left for the registry to reject */
  expect_algos("ringattn --algo help --block-kernel cudnn", "help");
  expect_algos("ringattn --algo nosuch --block-kernel both", "nosuch");
  /* the last --block-kernel wins, as every other option */
  expect_algos("ringattn --block-kernel cudnn --block-kernel collbench --algo single", "single");
  expect_error("ringattn --block-kernel", "needs a value");
  expect_error("ringattn --block-kernel cuDNN", "--block-kernel: 'cuDNN' (accepted: collbench, cudnn, both)");
  expect_error("ringattn --block-kernel ''", "--block-kernel");
  expect_error("ringattn --algo ring_cudnn --block-kernel collbench", "ring_cudnn is a cuDNN row");
  expect_error("allreduce --block-kernel cudnn", "apply only to the ringattn family");
  expect_error("moe --block-kernel both", "apply only to the ringattn family");
}

static void test_shards(void) {
  for (int P = 1; P <= 8; P++)
    for (int causal = 0; causal < 2; causal++) {
      uint64_t S = 2ull * P * 48;
      char why[256];
      CHECK_EQ_INT(cb_attn_seq_check(S, P, causal, why, sizeof why), 0);
      int *owner = calloc(S, sizeof(int));
      double work_min = 1e300, work_max = 0.0;
      for (int r = 0; r < P; r++) {
        cb_attn_runs_t x = cb_attn_shard(S, P, r, causal);
        CHECK(x.len0 + x.len1 == (int64_t)(S / P), "P=%d r=%d: %lld rows", P, r, (long long)(x.len0 + x.len1));
        CHECK(x.start1 >= x.start0 + x.len0, "runs in increasing order");
        if (causal) CHECK(x.len0 == x.len1, "zigzag chunks of one size");
        double work = 0.0; /* causal work: keys at or before each held query position */
        for (int64_t i = 0; i < x.len0 + x.len1; i++) {
          int64_t pos = i < x.len0 ? x.start0 + i : x.start1 + (i - x.len0);
          CHECK(pos >= 0 && pos < (int64_t)S, "position in range");
          owner[pos]++;
          work += (double)(pos + 1);
        }
        if (work < work_min) work_min = work;
        if (work > work_max) work_max = work;
      }
      for (uint64_t p = 0; p < S; p++) CHECK(owner[p] == 1, "P=%d causal=%d: position %llu held %d times", P, causal,
                                              (unsigned long long)p, owner[p]);
      if (causal) CHECK(work_max == work_min, "P=%d: zigzag causal work unbalanced (%g vs %g)", P, work_min, work_max);
      free(owner);
    }
  char why[256];
  CHECK_EQ_INT(cb_attn_seq_check(1002, 2, 1, why, sizeof why), -1);
  CHECK_CONTAINS(why, "4 equal chunks");
  CHECK_EQ_INT(cb_attn_seq_check(1002, 2, 0, why, sizeof why), 0);
  CHECK_EQ_INT(cb_attn_seq_check(1001, 2, 0, why, sizeof why), -1);
}

static void test_flops(void) {
  cb_attn_config_t c;
  cb_attn_defaults(&c);
  /* 4 * B * H * S^2 * D: B=1, H=32, S=16384, D=128 */
  CHECK_NEAR(cb_attn_flops(&c, 16384, 0), 4.0 * 32 * 16384.0 * 16384.0 * 128, 1.0);
  CHECK_NEAR(cb_attn_flops(&c, 16384, 1), 2.0 * 32 * 16384.0 * 16384.0 * 128, 1.0);
  c.kv_heads = 8;
  /* one rank's K and V at S=16384 over 2 ranks: 2 * 8192 * 8 * 128 * 2 bytes */
  CHECK(cb_attn_kv_shard_bytes(&c, 16384, 2, 2) == 2ull * 8192 * 8 * 128 * 2, "kv shard bytes");
}

/* --save's directory, checked at start on rank 0 (launcher/main.c). */
static void test_save_dir(void) {
  char why[1400], base[] = "/tmp/cb-attn-save-XXXXXX", path[1200];
  CHECK(mkdtemp(base) != NULL, "mkdtemp");
  CHECK_EQ_INT(cb_attn_check_save_dir(base, why, sizeof why), 0);            /* existing directory */
  snprintf(path, sizeof path, "%s/new", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), 0);            /* new, parent writable */
  snprintf(path, sizeof path, "%s/new/", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), 0);            /* trailing slash */
  snprintf(path, sizeof path, "%s/no/such/dir", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1);           /* parent missing */
  CHECK_CONTAINS(why, "parent of the new directory");
  snprintf(path, sizeof path, "%s/file", base);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "create %s", path);
  if (f) fclose(f);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1);           /* a regular file */
  CHECK_CONTAINS(why, "is not a directory");
  char link[1200];
  snprintf(link, sizeof link, "%s/to-null", base);
  CHECK(symlink("/dev/null", link) == 0, "symlink");
  CHECK_EQ_INT(cb_attn_check_save_dir(link, why, sizeof why), -1);           /* symlink to a device */
  CHECK_CONTAINS(why, "is not a directory");
  snprintf(link, sizeof link, "%s/to-dir", base);
  CHECK(symlink(base, link) == 0, "symlink");
  CHECK_EQ_INT(cb_attn_check_save_dir(link, why, sizeof why), 0);            /* symlink to a directory */
  CHECK_EQ_INT(cb_attn_check_save_dir("/proc/self/status", why, sizeof why), -1);
  if (geteuid() != 0) { /* root writes anywhere: the system does not refuse it */
    snprintf(path, sizeof path, "%s/ro", base);
    CHECK(mkdir(path, 0555) == 0, "mkdir");
    CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1);
    CHECK_CONTAINS(why, "not writable");
  }
  char cmd[1300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  CHECK(system(cmd) == 0, "cleanup");
}

int main(void) {
  test_save_dir();
  test_cli();
  test_block_kernel();
  test_shards();
  test_flops();
  return cb_test_finish("test_attn_config");
}

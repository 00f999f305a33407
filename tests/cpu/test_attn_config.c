/* CPU test of the ringattn configuration (collectives/attn/attn_config.c) and its command line
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
#include "attn_family.h"
#include "attn_layout.h"
#include "attn_save_dir.h"
#include "attn_variant.h"
#include "cb_testing.h"

static cb_args_t A;
/* the ringattn configuration the last parse left (the family\'s own, family.h) */
#define ATTN ((const cb_attn_config_t *)cb_args_config(&A))
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
  CHECK_EQ_INT(ATTN->batch, 1);
  CHECK_EQ_INT(ATTN->heads, 32);
  CHECK_EQ_INT(ATTN->kv_heads, 32);
  CHECK_EQ_INT(ATTN->head_dim, 128);
  CHECK_EQ_INT(ATTN->causal_modes, CB_ATTN_CAUSAL | CB_ATTN_NONCAUSAL);
  CHECK_EQ_INT(A.places, CB_PLACE_OUT);

  CHECK_EQ_INT(parse("ringattn --seq 1000,4K -d half --batch 2 --heads 8 --kv-heads 2 --head-dim 64 --causal 1 "
                     "--save /tmp/x"),
               CB_ARGS_OK);
  CHECK_EQ_INT(A.npoints, 2);
  CHECK(A.points[0] == 1000 && A.points[1] == 4096, "--seq list with K");
  CHECK_EQ_INT(A.dtypes[0], CB_HALF);
  CHECK_EQ_INT(ATTN->batch, 2);
  CHECK_EQ_INT(ATTN->heads, 8);
  CHECK_EQ_INT(ATTN->kv_heads, 2);
  CHECK_EQ_INT(ATTN->head_dim, 64);
  CHECK_EQ_INT(ATTN->causal_modes, CB_ATTN_CAUSAL);
  CHECK_EQ_STR(ATTN->save_dir, "/tmp/x");

  CHECK_EQ_INT(parse("ringattn --seq 16K:128K --causal 0"), CB_ARGS_OK);
  CHECK_EQ_INT(A.npoints, 4);
  CHECK(A.points[3] == 131072, "--seq range");
  CHECK_EQ_INT(ATTN->causal_modes, CB_ATTN_NONCAUSAL);
  /* --heads alone: plain multi-head attention */
  CHECK_EQ_INT(parse("ringattn --heads 12"), CB_ARGS_OK);
  CHECK_EQ_INT(ATTN->kv_heads, 12);

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

/* --layout and --ulysses (attn_layout.h, attn_variant.h). */
static void test_layout_ulysses(void) {
  CHECK_EQ_INT(parse("ringattn"), CB_ARGS_OK);
  CHECK(ATTN->layouts == 0 && ATTN->ulysses == 0 && !ATTN->ulysses_all, "defaults: no --layout, no --ulysses");
  CHECK_EQ_INT(parse("ringattn --layout zigzag --ulysses 2,4"), CB_ARGS_OK);
  CHECK(ATTN->layouts == CB_ATTN_LAYOUT_BIT(CB_ATTN_ZIGZAG) && ATTN->ulysses == 10, "--layout zigzag --ulysses 2,4");
  CHECK_EQ_INT(parse("ringattn --layout=all --ulysses=all"), CB_ARGS_OK);
  CHECK(ATTN->layouts == CB_ATTN_LAYOUT_ALL && ATTN->ulysses_all, "=all");
  CHECK_EQ_INT(parse("ringattn --layout stripe,zigzag"), CB_ARGS_OK);
  CHECK(ATTN->layouts == (CB_ATTN_LAYOUT_BIT(CB_ATTN_STRIPE) | CB_ATTN_LAYOUT_BIT(CB_ATTN_ZIGZAG)), "stripe,zigzag");
  expect_error("ringattn --layout stripes",
               "--layout: 'stripes' (accepted: contiguous, zigzag, stripe, a comma list, all)");
  expect_error("ringattn --layout", "needs a value");
  expect_error("ringattn --ulysses 0", "--ulysses: '0' (accepted: all, or ranks per group 1..64, comma-separated)");
  expect_error("ringattn --ulysses 2,x", "--ulysses: '2,x'");
  expect_error("allreduce --layout zigzag", "apply only to the ringattn family");
  expect_error("moe --ulysses 2", "apply only to the ringattn family");
}

/* The describer (attn_family.c) with --layout and --ulysses: the rank checks, the variants a rank
 * count runs, a variant's plan (its description and its layout's sequence check) and the row's
 * layout, U x R and size columns. */
static void test_describer_variants(void) {
  const cb_family_info_t *fi = cb_family_info(CB_RINGATTN);
  char why[256] = "", what[256] = "";
  CHECK_EQ_INT(parse("ringattn --ulysses 2,4 --layout all --causal 1"), CB_ARGS_OK);
  CHECK_EQ_INT(fi->check_ranks(ATTN, 8, A.dtypes, A.ndtypes, why, sizeof why), 0);
  CHECK_EQ_INT(fi->check_ranks(ATTN, 6, A.dtypes, A.ndtypes, why, sizeof why), -1);
  CHECK_CONTAINS(why, "--ulysses 4 does not divide 6 ranks");
  int on = 0;
  for (int v = 0; v < fi->nvariants; v++) on += fi->variant_on(ATTN, v, 8);
  CHECK_EQ_INT(on, 6); /* causal x {contiguous, zigzag, stripe} x U = {2, 4} */
  CHECK_EQ_INT(parse("ringattn --ulysses all"), CB_ARGS_OK);
  CHECK_EQ_INT(fi->check_ranks(ATTN, 6, A.dtypes, A.ndtypes, why, sizeof why), 0);
  on = 0;
  for (int v = 0; v < fi->nvariants; v++) on += fi->variant_on(ATTN, v, 6);
  CHECK_EQ_INT(on, 8); /* both causal forms in their default layouts x U = 1, 2, 3, 6 */
  char name[48];
  fi->nvtx_variant(ATTN, cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_ZIGZAG, 3, 0}), name, sizeof name);
  CHECK_EQ_STR(name, "-causal-U3");

  /* a non-default variant's group: its form in the description, its layout's sequence check */
  CHECK_EQ_INT(parse("ringattn --layout contiguous --ulysses 2 --causal 1"), CB_ARGS_OK);
  cb_params_t p = {.family = CB_RINGATTN, .dtype = CB_BF16, .point = 4100, .config = ATTN};
  p.variant = cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_CONTIGUOUS, 2, 0});
  CHECK_EQ_INT(fi->plan(&p, 4, "eager", what, sizeof what, why, sizeof why), 0); /* 4 chunks of 1025 */
  CHECK_EQ_STR(what, "ringattn bfloat16 S=4100 causal contiguous U=2 eager fwd");
  const uint64_t ring_bytes = p.bytes;
  CHECK(ring_bytes > 0, "the ring's bytes in the size column");
  p.variant = cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_ZIGZAG, 2, 0});
  CHECK_EQ_INT(fi->plan(&p, 4, "graph", what, sizeof what, why, sizeof why), -1); /* not 8 chunks */
  CHECK_EQ_STR(what, "ringattn bfloat16 S=4100 causal U=2 graph fwd");
  CHECK_CONTAINS(why, "8 equal chunks");
  p.variant = cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_STRIPE, 2, 0});
  CHECK_EQ_INT(fi->plan(&p, 4, "eager", what, sizeof what, why, sizeof why), 0); /* stripe: S/P = 1025 rows */
  CHECK_EQ_STR(what, "ringattn bfloat16 S=4100 causal stripe U=2 eager fwd");
  p.point = 4102;
  CHECK_EQ_INT(fi->plan(&p, 4, "eager", what, sizeof what, why, sizeof why), -1); /* 4102 over 4 ranks */
  CHECK_CONTAINS(why, "4 equal chunks (stripe: S/P rows per rank over 4 ranks)");
  p.point = 4100;

  /* the row: the group's layout on every row; U, R and the algorithm's own bytes on timed ones */
  p.variant = cb_attn_variant_index((cb_attn_variant_t){0, CB_ATTN_ZIGZAG, 2, 0});
  double m[CB_MAX_METRICS] = {0};
  m[CB_ATTN_ULYSSES] = 2, m[CB_ATTN_RING] = 2, m[CB_ATTN_FLOPS] = 1e9;
  const cb_bytes_t uly = {.algbw_bytes = 123456789.0, .busbw_factor = 1.0}, single = {0};
  cb_row_ctx_t x = {.p = &p, .nranks = 4, .phase = 1, .nphases = 1};
  cb_row_t r;
  memset(&r, 0, sizeof r);
  r.bytes = ring_bytes;
  fi->row(&x, &r); /* a skipped row */
  CHECK_EQ_STR(r.col[CB_COL_LAYOUT].s, "zigzag");
  CHECK(r.bytes == ring_bytes, "a skipped row keeps its group's bytes");
  x.timed = 1, x.time_us = 10.0, x.metrics = m, x.bytes = &uly;
  fi->row(&x, &r);
  CHECK(r.col[CB_COL_ULYSSES].d == 2 && r.col[CB_COL_RING].d == 2, "U = 2 x R = 2");
  CHECK(r.bytes == 123456789, "a Ulysses row's size column is its own count: %llu", (unsigned long long)r.bytes);
  r.bytes = ring_bytes;
  x.bytes = &single;
  fi->row(&x, &r);
  CHECK(r.bytes == ring_bytes, "single (0 bytes) keeps its group's value");
}

/* --batch LIST with --seq: the batch x sequence sweep, one variant per (form, batch) at every
 * sequence length, each group planned and reported at its own batch. */
static void test_batch_sweep(void) {
  const cb_family_info_t *fi = cb_family_info(CB_RINGATTN);
  char why[256] = "", what[256] = "";
  CHECK_EQ_INT(parse("ringattn --batch 1,4,2 --seq 8K,16K --causal 1"), CB_ARGS_OK);
  CHECK(ATTN->nbatches == 3 && ATTN->batches[0] == 1 && ATTN->batches[1] == 4 && ATTN->batches[2] == 2 &&
            ATTN->batch == 1,
        "--batch 1,4,2 in the order given");
  /* the groups of a point, in the engine's order: the batches as listed */
  int got[8], n = 0;
  for (int v = 0; v < fi->nvariants; v++)
    if (fi->variant_on(ATTN, v, 2) && n < 8) {
      cb_params_t p = {.family = CB_RINGATTN, .dtype = CB_BF16, .point = 8192, .variant = v, .config = ATTN};
      got[n++] = cb_attn_batch(&p);
    }
  CHECK(n == 3 && got[0] == 1 && got[1] == 4 && got[2] == 2, "3 groups per point, batches 1, 4, 2 (%d groups)", n);
  /* a group at batch 4: its description, its bytes (4 x batch 1's), its row's batch */
  cb_params_t p1 = {.family = CB_RINGATTN, .dtype = CB_BF16, .point = 8192, .config = ATTN};
  p1.variant = cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_ZIGZAG, 0, 0});
  cb_params_t p4 = p1;
  p4.variant = cb_attn_variant_index((cb_attn_variant_t){1, CB_ATTN_ZIGZAG, 0, 1});
  CHECK_EQ_INT(fi->plan(&p1, 2, "eager", what, sizeof what, why, sizeof why), 0);
  CHECK_EQ_STR(what, "ringattn bfloat16 S=8192 B=1 causal eager fwd");
  CHECK_EQ_INT(fi->plan(&p4, 2, "eager", what, sizeof what, why, sizeof why), 0);
  CHECK_EQ_STR(what, "ringattn bfloat16 S=8192 B=4 causal eager fwd");
  CHECK(p4.bytes == 4 * p1.bytes && p1.bytes > 0, "batch 4 moves 4 x the K/V: %llu, %llu", (unsigned long long)p4.bytes,
        (unsigned long long)p1.bytes);
  const cb_attn_config_t rc = cb_attn_row_config(&p4);
  CHECK(rc.batch == 4 && rc.heads == ATTN->heads && ATTN->batch == 1, "the row's configuration: batch 4");
  cb_row_ctx_t x = {.p = &p4, .nranks = 2, .phase = 1, .nphases = 1};
  cb_row_t r;
  memset(&r, 0, sizeof r);
  fi->row(&x, &r);
  CHECK_EQ_INT(r.col[CB_COL_BATCH].i, 4);
  char name[48];
  fi->nvtx_variant(ATTN, p4.variant, name, sizeof name);
  CHECK_EQ_STR(name, "-causal-b4");
  /* one batch: the description and the NVTX name of before */
  CHECK_EQ_INT(parse("ringattn --batch 3 --causal 1"), CB_ARGS_OK);
  p1.config = ATTN;
  CHECK_EQ_INT(fi->plan(&p1, 2, "eager", what, sizeof what, why, sizeof why), 0);
  CHECK_EQ_STR(what, "ringattn bfloat16 S=8192 causal eager fwd");
  fi->nvtx_variant(ATTN, p1.variant, name, sizeof name);
  CHECK_EQ_STR(name, "-causal");
  /* bad lists: one line each, nothing half-parsed */
  expect_error("ringattn --batch 1,2,2", "--batch: 2 is given twice");
  expect_error("ringattn --batch 1,,2", "--batch: '' is not a batch size 1..4096");
  expect_error("ringattn --batch 4097", "--batch: '4097' is not a batch size 1..4096");
  expect_error("ringattn --batch 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "more than 16 batch sizes");
  expect_error("ringattn --batch 2,", "--batch: ''");
  expect_error("ringattn --batch +2", "--batch: '+2'");
  expect_error("ringattn --batch 99999999999999999999999", "is not a batch size");
}

/* The parsed --algo list joined with ",", "" for none (= every algorithm of the family). */
static const char *algos(void) {
  static char buf[1024];
  buf[0] = 0;
  for (int i = 0; i < A.nalgos; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "," : "", A.algos[i]);
  return buf;
}

static void expect_algos(const char *cmd, const char *want) {
  int rc = parse(cmd);
  CHECK(rc == CB_ARGS_OK, "'%s' rejected: %s", cmd, err);
  CHECK(strcmp(algos(), want) == 0, "'%s' gives '%s', expected '%s'", cmd, algos(), want);
}

/* --block-kernel (collectives/attn/attn_block.h): the rows of each --algo / --block-kernel combination. */
static void test_block_kernel(void) {
  /* default: both kernels, every algorithm of the family */
  expect_algos("ringattn", "");
  CHECK_EQ_INT(ATTN->block_kernels, CB_ATTN_BLOCK_COLLBENCH | CB_ATTN_BLOCK_CUDNN);
  expect_algos("ringattn --block-kernel both", "");
  expect_algos("ringattn --block-kernel collbench", "single,ring,nccl_ring,nccl_allgather,ulysses,nccl_ulysses");
  expect_algos("ringattn --block-kernel=cudnn",
               "single_cudnn,ring_cudnn,nccl_ring_cudnn,nccl_allgather_cudnn,ulysses_cudnn,nccl_ulysses_cudnn");
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
      for (uint64_t p = 0; p < S; p++)
        CHECK(owner[p] == 1, "P=%d causal=%d: position %llu held %d times", P, causal, (unsigned long long)p, owner[p]);
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

static int file_is(const char *path, const char *text) {
  char buf[64] = "";
  FILE *f = fopen(path, "r");
  size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[got] = 0;
  return f && strcmp(buf, text) == 0;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "create %s", path);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

/* --save's directory, checked at start on rank 0 (launcher/preflight.c): a new folder in a
 * writable one; anything already at the name, a symlink above all, is refused (issue 32 N3). */
static void test_save_dir(const char *base) {
  char why[1400], path[1200];
  CHECK_EQ_INT(cb_attn_check_save_dir(base, why, sizeof why), -1); /* an existing directory */
  CHECK_CONTAINS(why, "exists");
  snprintf(path, sizeof path, "%s/new", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), 0); /* new, parent writable */
  snprintf(path, sizeof path, "%s/new/", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), 0); /* trailing slash */
  snprintf(path, sizeof path, "%s/no/such/dir", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1); /* parent missing */
  CHECK_CONTAINS(why, "parent of the new directory");
  snprintf(path, sizeof path, "%s/file", base);
  write_file(path, "x");
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1); /* a regular file */
  CHECK_CONTAINS(why, "exists");
  snprintf(path, sizeof path, "%s/file/sub", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1); /* parent not a directory */
  char link[1200];
  snprintf(link, sizeof link, "%s/to-null", base);
  CHECK(symlink("/dev/null", link) == 0, "symlink");
  CHECK_EQ_INT(cb_attn_check_save_dir(link, why, sizeof why), -1); /* symlink to a device */
  snprintf(link, sizeof link, "%s/to-dir", base);
  CHECK(symlink(base, link) == 0, "symlink");
  CHECK_EQ_INT(cb_attn_check_save_dir(link, why, sizeof why), -1); /* symlink to a directory */
  CHECK_CONTAINS(why, "exists");
  snprintf(path, sizeof path, "%s/to-dir/", base);
  CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1); /* ... with a trailing slash */
  snprintf(link, sizeof link, "%s/dangling", base);
  CHECK(symlink("/nonexistent-cb-save", link) == 0, "symlink");
  CHECK_EQ_INT(cb_attn_check_save_dir(link, why, sizeof why), -1); /* a dangling symlink */
  CHECK_EQ_INT(cb_attn_check_save_dir("/proc/version", why, sizeof why), -1);
  if (geteuid() != 0) { /* root writes anywhere: the system does not refuse it */
    snprintf(path, sizeof path, "%s/ro", base);
    CHECK(mkdir(path, 0555) == 0, "mkdir");
    snprintf(path, sizeof path, "%s/ro/new", base);
    CHECK_EQ_INT(cb_attn_check_save_dir(path, why, sizeof why), -1);
    CHECK_CONTAINS(why, "not writable");
  }
}

/* What cb_ra_save writes through (attn_save_dir.h): the folder is made by the first row, later
 * rows add their folders, and a name planted anywhere (the folder, a row folder, a file) is never
 * followed: its target stays as it was. */
static void test_save_files(const char *base) {
  char why[1400], dir[1200], path[1300], target[1200];
  snprintf(dir, sizeof dir, "%s/save", base);
  snprintf(target, sizeof target, "%s/target", base);
  write_file(target, "keep");
  int fd = cb_attn_save_open_row(dir, "ring-bfloat16-S512-causal", why, sizeof why);
  CHECK(fd >= 0, "first row: %s", why);
  FILE *f = fd >= 0 ? cb_attn_save_create(fd, dir, "q.npy", why, sizeof why) : NULL;
  CHECK(f != NULL, "q.npy: %s", why);
  if (f) fclose(f);
  /* a symlink planted at a file name inside the row folder: refused, target kept */
  snprintf(path, sizeof path, "%s/ring-bfloat16-S512-causal/k.npy", dir);
  CHECK(symlink(target, path) == 0, "symlink");
  f = fd >= 0 ? cb_attn_save_create(fd, dir, "k.npy", why, sizeof why) : NULL;
  CHECK(f == NULL, "k.npy opened through a planted symlink");
  CHECK_CONTAINS(why, "k.npy");
  if (f) fclose(f);
  CHECK(file_is(target, "keep"), "the planted k.npy's target was written");
  /* the same name twice (a file there already): refused, not overwritten */
  f = fd >= 0 ? cb_attn_save_create(fd, dir, "q.npy", why, sizeof why) : NULL;
  CHECK(f == NULL, "q.npy created twice");
  if (f) fclose(f);
  if (fd >= 0) close(fd);
  /* a later row: the folder is ours, its row folder new */
  fd = cb_attn_save_open_row(dir, "ring-bfloat16-S512-causal-graph", why, sizeof why);
  CHECK(fd >= 0, "second row: %s", why);
  if (fd >= 0) close(fd);
  /* a row folder name planted as a symlink to a folder: refused */
  snprintf(path, sizeof path, "%s/single-bfloat16-S512-causal", dir);
  CHECK(symlink(base, path) == 0, "symlink");
  fd = cb_attn_save_open_row(dir, "single-bfloat16-S512-causal", why, sizeof why);
  CHECK(fd < 0, "row folder opened through a planted symlink");
  CHECK_CONTAINS(why, "already there");
  if (fd >= 0) close(fd);
  /* DIR itself swapped for a symlink to a folder after the start check: refused */
  char swapped[1200];
  snprintf(swapped, sizeof swapped, "%s/swapped", base);
  CHECK(symlink(dir, swapped) == 0, "symlink");
  fd = cb_attn_save_open_row(swapped, "x", why, sizeof why);
  CHECK(fd < 0, "a symlinked save folder was followed");
  if (fd >= 0) close(fd);
  snprintf(path, sizeof path, "%s/swapped/", base);
  fd = cb_attn_save_open_row(path, "y", why, sizeof why);
  CHECK(fd < 0, "a symlinked save folder with a trailing slash was followed");
  if (fd >= 0) close(fd);
  snprintf(path, sizeof path, "%s/x", dir);
  CHECK(access(path, F_OK) != 0, "a row folder appeared behind the symlink");
  if (geteuid() == 0) { /* a folder another user made there since the start check: refused */
    char other[1200];
    snprintf(other, sizeof other, "%s/other", base);
    CHECK(mkdir(other, 0777) == 0 && chown(other, 65534, 65534) == 0, "mkdir/chown");
    fd = cb_attn_save_open_row(other, "z", why, sizeof why);
    CHECK(fd < 0, "another user's folder taken as the save folder");
    CHECK_CONTAINS(why, "belongs to user 65534");
    if (fd >= 0) close(fd);
  }
}

int main(void) {
  char base[] = "/tmp/cb-attn-save-XXXXXX", cmd[200];
  CHECK(mkdtemp(base) != NULL, "mkdtemp");
  test_save_dir(base);
  test_save_files(base);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  CHECK(system(cmd) == 0, "cleanup");
  test_cli();
  test_layout_ulysses();
  test_describer_variants();
  test_batch_sweep();
  test_block_kernel();
  test_shards();
  test_flops();
  return cb_test_finish("test_attn_config");
}

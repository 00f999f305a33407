/* CPU test of the Ulysses all-to-all's host arithmetic (collectives/attn/attn_a2a.c), the index
 * math the ulysses and nccl_ulysses rows run on the GPU with the same copies:
 *   - the head split for every H, KV (dividing H) and U up to 16: each query head with exactly one
 *     member, each member's query heads reading only the K/V heads it holds, each K/V head held by
 *     kv_replicas members with distinct replica indices; the refusals and their reasons;
 *   - the copies run on host arrays (a memcpy 2D stand-in): q scattered by heads and gathered by
 *     sequence into every member's inner tensor exactly as the index math says, directly (the
 *     peer form) and through packed chunks (the NCCL form); the way back; K/V with replicated
 *     heads into per-replica landing blocks; the log-sum-exp's [batch][heads][rows] layout;
 *     how many 2D copies each block takes;
 *   - the byte formula of docs/algorithms.md: U = 1 is the ring's, hand-computed Ulysses and
 *     hybrid cases, replicated K/V heads, one rank, a split that is refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_a2a.h"
#include "cb_testing.h"

static void test_split(void) {
  cb_attn_heads_split_t s;
  char why[256];
  CHECK(cb_attn_heads_split(32, 32, 8, &s, why, sizeof why) == 0 && s.q_heads == 4 && s.kv_heads == 4 &&
            s.kv_replicas == 1,
        "32/32 over 8");
  CHECK(cb_attn_heads_split(32, 2, 8, &s, why, sizeof why) == 0 && s.q_heads == 4 && s.kv_heads == 1 &&
            s.kv_replicas == 4,
        "32/2 over 8: K/V heads replicated 4 times");
  CHECK(cb_attn_heads_split(12, 4, 8, &s, why, sizeof why) == -1, "12 heads over 8");
  CHECK_CONTAINS(why, "12 heads do not split over U=8 ranks");
  CHECK(cb_attn_heads_split(12, 3, 2, &s, why, sizeof why) == -1, "3 kv heads over 2");
  CHECK_CONTAINS(why, "3 kv-heads neither split over U=2 ranks nor replicate onto them");
  for (int H = 1; H <= 16; H++)
    for (int KV = 1; KV <= H; KV++) {
      if (H % KV) continue;
      for (int U = 1; U <= 16; U++) {
        if (cb_attn_heads_split(H, KV, U, &s, why, sizeof why)) {
          CHECK(H % U || (KV % U && U % KV), "H=%d KV=%d U=%d refused: %s", H, KV, U, why);
          continue;
        }
        int qcount[16] = {0}, kvcount[16] = {0}, seen[16][16] = {{0}};
        for (int v = 0; v < U; v++) {
          const int k0 = cb_attn_kv_head0(&s, v);
          CHECK(k0 >= 0 && k0 + s.kv_heads <= KV, "H=%d KV=%d U=%d member %d kv heads from %d", H, KV, U, v, k0);
          for (int k = 0; k < s.kv_heads && k0 + k < KV; k++) {
            kvcount[k0 + k]++;
            const int rep = cb_attn_kv_replica(&s, v);
            CHECK(rep >= 0 && rep < s.kv_replicas && !seen[k0 + k][rep], "replica %d of kv head %d twice", rep, k0 + k);
            if (rep >= 0 && rep < 16) seen[k0 + k][rep] = 1;
          }
          for (int h = cb_attn_q_head0(&s, v); h < cb_attn_q_head0(&s, v) + s.q_heads; h++) {
            qcount[h]++;
            const int kvh = h / (H / KV); /* the kernels' grouping */
            CHECK(kvh >= k0 && kvh < k0 + s.kv_heads,
                  "H=%d KV=%d U=%d: head %d reads kv head %d, member %d holds %d..%d", H, KV, U, h, kvh, v, k0,
                  k0 + s.kv_heads - 1);
            CHECK(kvh - k0 == (h - cb_attn_q_head0(&s, v)) / (s.q_heads / s.kv_heads),
                  "the inner grouping reads the same K/V head");
          }
        }
        for (int h = 0; h < H; h++) CHECK(qcount[h] == 1, "H=%d U=%d: head %d with %d members", H, U, h, qcount[h]);
        for (int k = 0; k < KV; k++)
          CHECK(kvcount[k] == s.kv_replicas, "H=%d KV=%d U=%d: kv head %d held %d times", H, KV, U, k, kvcount[k]);
      }
    }
}

/* ---- the copies on host arrays ------------------------------------------------------------ */

static int ncopies;
/* ctx non-NULL: count only (addresses that could not be touched) */
static void host_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                        void *ctx) {
  CHECK(width <= dpitch && width <= spitch, "width %zu over pitches %zu, %zu", width, dpitch, spitch);
  CHECK(dpitch <= CB_ATTN_COPY_MAX_PITCH && spitch <= CB_ATTN_COPY_MAX_PITCH, "pitch %zu, %zu", dpitch, spitch);
  if (ctx) {
    ncopies++;
    return;
  }
  for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
  ncopies++;
}

enum { D = 3 }; /* elements of a head (uint32: unit = 12 bytes) */

/* The value of shard element (member u, batch b, row, head h, d). */
static uint32_t id(int u, int b, int row, int h, int d) {
  return (uint32_t)((((u * 8 + b) * 64 + row) * 64 + h) * 8 + d + 1);
}

/* q (or one of K, V: kv) of U members with L rows, H heads (split s), batch B: forward and back,
 * direct and packed; K/V back with replicas into replica blocks. */
static void check_tensor(int B, int L, int U, int H, int KV, int kv) {
  cb_attn_heads_split_t s;
  char why[256];
  if (cb_attn_heads_split(H, KV, U, &s, why, sizeof why)) return;
  const int Hs = kv ? KV : H, Hi = kv ? s.kv_heads : s.q_heads, reps = kv ? s.kv_replicas : 1;
  const cb_attn_a2a_tensor_t t = {.rows_major = 1,
                                  .batch = (size_t)B,
                                  .L = (size_t)L,
                                  .U = U,
                                  .shard_heads = Hs,
                                  .inner_heads = Hi,
                                  .unit = D * sizeof(uint32_t)};
  const size_t shard_n = (size_t)B * L * Hs * D, inner_n = (size_t)B * U * L * Hi * D;
  uint32_t *shard[16], *inner[16], *packed = malloc(inner_n * sizeof(uint32_t) + 4);
  for (int u = 0; u < U; u++) {
    shard[u] = malloc(shard_n * sizeof(uint32_t));
    inner[u] = calloc(inner_n, sizeof(uint32_t));
    for (int b = 0; b < B; b++)
      for (int r = 0; r < L; r++)
        for (int h = 0; h < Hs; h++)
          for (int d = 0; d < D; d++) shard[u][(((size_t)b * L + r) * Hs + h) * D + d] = id(u, b, r, h, d);
  }
  for (int pass = 0; pass < 2; pass++) /* 0: direct; 1: through a packed chunk */
    for (int u = 0; u < U; u++)
      for (int v = 0; v < U; v++) {
        const int h0 = kv ? cb_attn_kv_head0(&s, v) : cb_attn_q_head0(&s, v);
        const cb_attn_copy_t c = cb_attn_a2a_block(&t, u, h0);
        ncopies = 0;
        if (!pass) {
          cb_attn_copy_run(&c, inner[v], shard[u], host_copy2d, NULL);
          /* one copy where slabs follow each other (U = 1) or rows are whole (Hi = Hs), else one per slab */
          CHECK(ncopies == (U == 1 || Hi == Hs ? 1 : B), "direct block: %d copies (B=%d U=%d)", ncopies, B, U);
        } else {
          const cb_attn_copy_t pk = cb_attn_copy_packed(c, 1), un = cb_attn_copy_packed(c, 0);
          CHECK(cb_attn_copy_bytes(&c) == (size_t)B * L * Hi * D * sizeof(uint32_t), "chunk bytes");
          cb_attn_copy_run(&pk, packed, shard[u], host_copy2d, NULL);
          cb_attn_copy_run(&un, inner[v], packed, host_copy2d, NULL);
          CHECK(ncopies == 2, "pack and unpack: one copy each (%d)", ncopies);
        }
      }
  /* inner[v][b][row][hh][d] = shard[row / L][b][row % L][h0(v) + hh][d] */
  long bad = 0;
  for (int v = 0; v < U; v++) {
    const int h0 = kv ? cb_attn_kv_head0(&s, v) : cb_attn_q_head0(&s, v);
    for (int b = 0; b < B; b++)
      for (int row = 0; row < U * L; row++)
        for (int hh = 0; hh < Hi; hh++)
          for (int d = 0; d < D; d++)
            bad += inner[v][(((size_t)b * U * L + row) * Hi + hh) * D + d] != id(row / L, b, row % L, h0 + hh, d);
  }
  CHECK(bad == 0, "B=%d L=%d U=%d H=%d KV=%d %s: %ld inner elements wrong", B, L, U, H, KV, kv ? "kv" : "q", bad);
  /* back: every member's blocks into each owner's landing blocks (one per replica) */
  for (int u = 0; u < U; u++) {
    uint32_t *land = calloc(shard_n * (size_t)reps, sizeof(uint32_t));
    for (int v = 0; v < U; v++) {
      const int h0 = kv ? cb_attn_kv_head0(&s, v) : cb_attn_q_head0(&s, v), rep = kv ? cb_attn_kv_replica(&s, v) : 0;
      const cb_attn_copy_t c = cb_attn_copy_reverse(cb_attn_a2a_block(&t, u, h0));
      cb_attn_copy_run(&c, land + (size_t)rep * shard_n, inner[v], host_copy2d, NULL);
    }
    for (int j = 0; j < reps; j++)
      CHECK(memcmp(land + (size_t)j * shard_n, shard[u], shard_n * sizeof(uint32_t)) == 0,
            "B=%d L=%d U=%d H=%d KV=%d %s: member %d's landing block %d differs from its shard", B, L, U, H, KV,
            kv ? "kv" : "q", u, j);
    free(land);
  }
  for (int u = 0; u < U; u++) free(shard[u]), free(inner[u]);
  free(packed);
}

/* The log-sum-exp: shard [B][H][L] floats, inner [B][Hi][U*L]: back into place. */
static void check_lse(int B, int L, int U, int H) {
  cb_attn_heads_split_t s;
  char why[256];
  if (cb_attn_heads_split(H, H, U, &s, why, sizeof why)) return;
  const int Hi = s.q_heads;
  const cb_attn_a2a_tensor_t t = {.rows_major = 0,
                                  .batch = (size_t)B,
                                  .L = (size_t)L,
                                  .U = U,
                                  .shard_heads = H,
                                  .inner_heads = Hi,
                                  .unit = sizeof(uint32_t)};
  uint32_t *inner[16], *shard = calloc((size_t)B * H * L, sizeof(uint32_t));
  for (int v = 0; v < U; v++) {
    inner[v] = malloc((size_t)B * Hi * U * L * sizeof(uint32_t));
    for (int b = 0; b < B; b++)
      for (int hh = 0; hh < Hi; hh++)
        for (int row = 0; row < U * L; row++)
          inner[v][((size_t)b * Hi + hh) * U * L + row] = id(row / L, b, row % L, v * Hi + hh, 0);
  }
  const int u = U - 1; /* the last member's rows */
  for (int v = 0; v < U; v++) {
    const cb_attn_copy_t c = cb_attn_copy_reverse(cb_attn_a2a_block(&t, u, cb_attn_q_head0(&s, v)));
    const cb_attn_copy_t pk = cb_attn_copy_packed(c, 1), un = cb_attn_copy_packed(c, 0);
    uint32_t *chunk = malloc(cb_attn_copy_bytes(&c) + 4);
    cb_attn_copy_run(&pk, chunk, inner[v], host_copy2d, NULL);
    cb_attn_copy_run(&un, shard, chunk, host_copy2d, NULL);
    free(chunk);
  }
  long bad = 0;
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++)
      for (int r = 0; r < L; r++) bad += shard[((size_t)b * H + h) * L + r] != id(u, b, r, h, 0);
  CHECK(bad == 0, "lse B=%d L=%d U=%d H=%d: %ld wrong", B, L, U, H, bad);
  for (int v = 0; v < U; v++) free(inner[v]);
  free(shard);
}

static void test_copies(void) {
  const int shapes[][2] = {{1, 1}, {2, 1}, {4, 4}, {4, 2}, {4, 1}, {6, 3}, {8, 2}, {8, 8}, {12, 4}};
  for (int B = 1; B <= 2; B++)
    for (int L = 1; L <= 3; L += 2)
      for (int U = 1; U <= 8; U++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
          check_tensor(B, L, U, shapes[i][0], shapes[i][1], 0);
          check_tensor(B, L, U, shapes[i][0], shapes[i][1], 1);
          check_lse(B, L, U, shapes[i][0]);
        }
  /* slabs that follow each other on both sides: one copy for every batch */
  const cb_attn_copy_t c = {
      .width = 4, .rows = 3, .src_row = 8, .dst_row = 4, .batch = 2, .src_batch = 24, .dst_batch = 12};
  char src[48], dst[24];
  for (int i = 0; i < 48; i++) src[i] = (char)i;
  ncopies = 0;
  CHECK(cb_attn_copy_run(&c, dst, src, host_copy2d, NULL) == 1 && ncopies == 1, "one 2D copy");
  CHECK(dst[4] == 8 && dst[12] == 24 && dst[23] == 43, "its bytes");
  const cb_attn_copy_t none = {.width = 0, .rows = 3, .batch = 2};
  CHECK(cb_attn_copy_run(&none, dst, src, host_copy2d, NULL) == 0, "nothing to copy");
  /* pitches a 2D copy cannot take: one copy per slab, or per row */
  const size_t big = CB_ATTN_COPY_MAX_PITCH + 1;
  int dry = 1;
  const cb_attn_copy_t slabs = {
      .width = 8, .rows = 4, .src_row = 8, .dst_row = 8, .batch = 3, .src_batch = 32, .dst_batch = big};
  ncopies = 0;
  CHECK(cb_attn_copy_run(&slabs, NULL, NULL, host_copy2d, &dry) == 3 && ncopies == 3, "slab pitch too large");
  const cb_attn_copy_t rows = {
      .width = 8, .rows = 4, .src_row = 16, .dst_row = big, .batch = 3, .src_batch = 64, .dst_batch = 4 * big};
  ncopies = 0;
  CHECK(cb_attn_copy_run(&rows, NULL, NULL, host_copy2d, &dry) == 12 && ncopies == 12, "row pitch too large");
}

static void test_bytes(void) {
  cb_attn_config_t c;
  cb_attn_defaults(&c);
  c.heads = 32, c.kv_heads = 8, c.head_dim = 128, c.batch = 1;
  const uint64_t S = 8192, e = 2, L = S / 8;
  /* pure Ulysses, 8 ranks: 4 heads, 1 kv head each */
  const uint64_t fwd = 7 * L * 128 * ((4 + 2 * 1) * e + 4 * e), bwd = 7 * L * 128 * (4 * e + (4 + 2) * 4);
  CHECK(cb_attn_ulysses_bytes(&c, S, 8, 8, e, CB_ATTN_PASS_FWD) == fwd, "Ulysses fwd");
  CHECK(cb_attn_ulysses_bytes(&c, S, 8, 8, e, CB_ATTN_PASS_BWD) == bwd, "Ulysses bwd");
  CHECK(cb_attn_ulysses_bytes(&c, S, 8, 8, e, CB_ATTN_PASS_BOTH) == fwd + bwd, "Ulysses both");
  /* U = 2 x R = 4: 16 heads, 4 kv heads per rank; the ring moves the group's K/V blocks */
  const uint64_t a2a = 1 * L * 128 * ((16 + 8) * e + 16 * e), ring = 3 * 2 * (S / 4) * 4 * 128 * e;
  CHECK(cb_attn_ulysses_bytes(&c, S, 8, 2, e, CB_ATTN_PASS_FWD) == a2a + ring, "hybrid fwd: %llu",
        (unsigned long long)cb_attn_ulysses_bytes(&c, S, 8, 2, e, CB_ATTN_PASS_FWD));
  /* U = 1 is the ring */
  for (int pass = 0; pass < 3; pass++)
    CHECK(cb_attn_ulysses_bytes(&c, S, 8, 1, e, pass) == cb_attn_pass_bytes(&c, S, 8, e, pass), "U = 1, pass %d", pass);
  /* K/V heads replicated: 2 kv heads over 8 ranks, one each */
  c.kv_heads = 2;
  CHECK(cb_attn_ulysses_bytes(&c, S, 8, 8, e, CB_ATTN_PASS_FWD) == fwd, "replicated: still one kv head per rank");
  CHECK(cb_attn_ulysses_bytes(&c, S, 1, 1, e, CB_ATTN_PASS_FWD) == 0, "one rank");
  c.heads = 12, c.kv_heads = 4;
  CHECK(cb_attn_ulysses_bytes(&c, S, 8, 8, e, CB_ATTN_PASS_FWD) == 0, "a refused split moves nothing");
}

int main(void) {
  test_split();
  test_copies();
  test_bytes();
  return cb_test_finish("test_attn_a2a");
}

/* MPI test on CPU ranks (no CUDA) of the MoE count exchange and layout, run by
 * run_mpi_case.py under mpirun -np 2 and -np 4.
 *
 * For each configuration (DeepSeek-V3, Qwen3 and Mixtral shapes, uniform / zipf / hot laws,
 * with drops, balanced and --uneven token counts so the last rank has none) every rank routes
 * its own tokens (cb_moe_route with cb_moe_tokens_for_rank), builds its layout
 * (cb_moe_layout_host), and exchanges per-destination counts with MPI_Alltoall, the count
 * exchange the NCCL path performs. Routing is a pure function of (config, seed, rank, token),
 * so each rank regenerates every source's routing locally (its own included, starting from
 * the next rank so the calls come in another order) and checks that:
 *   - regenerating its own routing gives the routing it sent from;
 *   - the count received from each source equals the source's regenerated send_count[me];
 *   - the (token, destination) total is conserved across ranks (MPI_Allreduce) and equals the
 *     total every rank computes from the regenerated routings;
 *   - the token index lists exchanged with MPI_Alltoallv are increasing, equal the source's
 *     regenerated send list for this rank, and name tokens that do route here.
 * Mismatches are printed with the rank; rank 0 prints "PASS moe-counts (N ranks)" and the job
 * exits 0 only when every rank's checks hold (agreed with an MPI_Allreduce). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "error.h"
#include "moe_config.h"
#include "moe_router.h"

typedef struct moe_case {
  const char *model, *routing;
  int tokens, uneven;
  double drop;
} moe_case_t;

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) CB_DIE(CB_EXIT_RUNTIME, "mpi_moe_counts: out of memory (%zu x %zu bytes)", n, size);
  return p;
}

static void route_layout(const cb_moe_config_t *c, uint64_t seed, int rank, int n, int T, cb_moe_routing_t *r,
                         cb_moe_layout_t *l) {
  if (cb_moe_route(c, seed, rank, n, T, r) || cb_moe_layout_host(r, c->experts, n, l))
    CB_DIE(CB_EXIT_RUNTIME, "mpi_moe_counts: routing rank %d (%d tokens) failed", rank, T);
}

static void run_case(const moe_case_t *mc, uint64_t seed, int me, int n) {
  cb_moe_config_t c;
  memset(&c, 0, sizeof c);
  char why[256] = "", what[128];
  if (cb_moe_preset(mc->model, &c) || cb_routing_parse(mc->routing, &c.routing, why, sizeof why))
    CB_DIE(CB_EXIT_USAGE, "mpi_moe_counts: bad case %s %s: %s", mc->model, mc->routing, why);
  c.uneven = mc->uneven;
  c.drop = mc->drop;
  snprintf(what, sizeof what, "%s %s tokens %d%s drop %g seed %llu", mc->model, mc->routing, mc->tokens,
           mc->uneven ? " uneven" : "", mc->drop, (unsigned long long)seed);
  int failures_before = cb_test_failures;
  CHECK(cb_moe_config_check(&c, n, CB_BF16, why, sizeof why) == 0, "rank %d: %s rejected: %s", me, what, why);

  /* my own routing and layout, as the benchmark builds them */
  cb_moe_routing_t own;
  cb_moe_layout_t own_layout;
  route_layout(&c, seed, me, n, cb_moe_tokens_for_rank(&c, (uint64_t)mc->tokens, me, n), &own, &own_layout);
  const cb_moe_layout_t *mine = &own_layout;
  const int T = own.ntokens;

  /* every source's routing and layout, regenerated here in another order (from the next rank
   * on, mine last), so hidden state in the router would show as a mismatch */
  cb_moe_routing_t *rt = xcalloc((size_t)n, sizeof *rt);
  cb_moe_layout_t *ly = xcalloc((size_t)n, sizeof *ly);
  for (int i = 1; i <= n; i++) {
    int s = (me + i) % n;
    route_layout(&c, seed, s, n, cb_moe_tokens_for_rank(&c, (uint64_t)mc->tokens, s, n), &rt[s], &ly[s]);
  }
  if (mc->uneven) CHECK(rt[n - 1].ntokens == 0, "rank %d: %s: last rank has %d tokens", me, what, rt[n - 1].ntokens);
  int own_same = T == rt[me].ntokens &&
                 memcmp(own.ids, rt[me].ids, sizeof(int32_t) * (size_t)T * (size_t)c.topk) == 0 &&
                 memcmp(own.weights, rt[me].weights, sizeof(float) * (size_t)T * (size_t)c.topk) == 0;
  CHECK(own_same, "rank %d: %s: routing my tokens twice gave different results", me, what);

  /* count exchange: recv_count[s] = what source s sends me */
  int *recv_count = xcalloc((size_t)n, sizeof(int));
  CB_MPI(MPI_Alltoall(mine->send_count, 1, MPI_INT, recv_count, 1, MPI_INT, MPI_COMM_WORLD));
  long long sent = 0, received = 0, expected_total = 0;
  for (int s = 0; s < n; s++) {
    CHECK(recv_count[s] == ly[s].send_count[me], "rank %d: %s: received count %d from rank %d, its routing sends %d",
          me, what, recv_count[s], s, ly[s].send_count[me]);
    received += recv_count[s];
    sent += mine->send_count[s];
    for (int d = 0; d < n; d++) expected_total += ly[s].send_count[d];
  }
  long long pair[2] = {sent, received}, total[2] = {0, 0};
  CB_MPI(MPI_Allreduce(pair, total, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total[0] == total[1], "rank %d: %s: %lld (token, destination) pairs sent, %lld received", me, what, total[0],
        total[1]);
  CHECK(total[0] == expected_total, "rank %d: %s: %lld pairs sent over all ranks, regenerated routings give %lld", me,
        what, total[0], expected_total);

  /* the token index lists themselves: my send_idx rows packed by destination */
  int *sdispl = xcalloc((size_t)n, sizeof(int)), *rdispl = xcalloc((size_t)n, sizeof(int));
  for (int d = 1; d < n; d++) {
    sdispl[d] = sdispl[d - 1] + mine->send_count[d - 1];
    rdispl[d] = rdispl[d - 1] + recv_count[d - 1];
  }
  int *sendbuf = xcalloc((size_t)sent, sizeof(int)), *recvbuf = xcalloc((size_t)received, sizeof(int));
  for (int d = 0; d < n; d++)
    memcpy(sendbuf + sdispl[d], mine->send_idx + (size_t)d * T, sizeof(int) * (size_t)mine->send_count[d]);
  CB_MPI(
      MPI_Alltoallv(sendbuf, mine->send_count, sdispl, MPI_INT, recvbuf, recv_count, rdispl, MPI_INT, MPI_COMM_WORLD));
  for (int s = 0; s < n; s++) {
    const int *got = recvbuf + rdispl[s], *want = ly[s].send_idx + (size_t)me * rt[s].ntokens;
    int cnt = recv_count[s] < ly[s].send_count[me] ? recv_count[s] : ly[s].send_count[me];
    int unordered = 0, differ = 0, stray = 0, first = -1;
    for (int j = 0; j < cnt; j++) {
      if (j > 0 && got[j] <= got[j - 1]) unordered++;
      if (got[j] != want[j]) {
        differ++;
        if (first < 0) first = j;
      }
      if (got[j] < 0 || got[j] >= rt[s].ntokens || !cb_moe_token_goes_to(&rt[s], got[j], c.experts, n, me)) stray++;
    }
    CHECK(unordered == 0, "rank %d: %s: list from rank %d not in increasing token order (%d places)", me, what, s,
          unordered);
    CHECK(differ == 0,
          "rank %d: %s: list from rank %d differs from its regenerated routing in %d places (first: "
          "position %d, got token %d, expected %d)",
          me, what, s, differ, first, first >= 0 ? got[first] : -1, first >= 0 ? want[first] : -1);
    CHECK(stray == 0, "rank %d: %s: %d tokens from rank %d do not route to rank %d", me, what, stray, s, me);
  }
  if (cb_test_failures > failures_before) fprintf(stderr, "rank %d: FAIL %s\n", me, what);

  free(sendbuf);
  free(recvbuf);
  free(sdispl);
  free(rdispl);
  free(recv_count);
  for (int s = 0; s < n; s++) {
    cb_moe_routing_free(&rt[s]);
    cb_moe_layout_free(&ly[s]);
  }
  free(rt);
  free(ly);
  cb_moe_routing_free(&own);
  cb_moe_layout_free(&own_layout);
}

int main(int argc, char **argv) {
  CB_MPI(MPI_Init(&argc, &argv));
  int me = 0, n = 1;
  CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
  static const moe_case_t cases[] = {
      {"deepseek-v3", "uniform", 256, 0, 0.0},   {"deepseek-v3", "zipf:1.2", 512, 1, 0.1},
      {"deepseek-v3", "hot:8:4", 300, 1, 0.0},   {"qwen3-30b-a3b", "hot:4:8", 200, 0, 0.25},
      {"qwen3-30b-a3b", "zipf:2", 1000, 1, 0.0}, {"mixtral-8x7b", "uniform", 2000, 0, 0.5},
      {"mixtral-8x7b", "hot:1:3", 777, 1, 0.0},  {"deepseek-v3", "uniform", 1, 1, 0.0},
      {"deepseek-v3", "zipf:1.2", 0, 0, 0.0}, /* zero tokens everywhere */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (uint64_t seed = 1; seed <= 2; seed++) run_case(&cases[i], seed * 1000003u + i, me, n);

  int mine = cb_test_failures, total = 0;
  CB_MPI(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (mine) fprintf(stderr, "rank %d: %d of %d checks failed\n", me, mine, cb_test_checks);
  if (me == 0) {
    if (total) printf("FAIL moe-counts: %d failed checks over %d ranks\n", total, n);
    else printf("PASS moe-counts (%d ranks)\n", n);
    fflush(stdout);
  }
  CB_MPI(MPI_Finalize());
  return total ? 1 : 0;
}

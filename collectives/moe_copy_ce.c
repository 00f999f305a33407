/* MoE "copy_ce": the link's reference in the same run, not a MoE algorithm. Each rank copies,
 * with the copy engine (cudaMemcpyAsync into the peers' mapped memory), as many bytes to its
 * peers as the MoE phases move remotely per rank (cb_moe_bytes: the mean over ranks, split
 * evenly among the peers), all ranks at once:
 *   phase dispatch: the dispatch's remote bytes (bf16 rows, or fp8 rows with their scales)
 *   phase combine:  the combine's remote bytes (bf16 rows)
 * Timed like the MoE algorithms (interleaved with them at each sweep point), so the peer rows'
 * remote GB/s can be read against it: the bench prints the ratio (launcher/bench.c). No SM
 * moves data (sms 0). Peer allocation per rank: [ from rank 0 | ... | from rank n-1 ], each
 * region `per_peer` bytes. */
#include <stdio.h>
#include <stdlib.h>

#include "cb_limits.h"
#include "error_gpu.h"
#include "moe_common.h"

static const char *const phase_names[2] = {"dispatch", "combine"};

typedef struct copy_ce {
  cb_moe_state_t *st; /* the routing's byte counts; st->x is the source buffer */
  size_t bytes[2];    /* per peer, per phase (16-byte multiples) */
  size_t per_peer;
} copy_ce_t;

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_moe_supported(w, p, why, n) || !cb_peer_supported(w, why, n)) return 0;
  if (w->mpi.nranks < 2) {
    snprintf(why, n, "not supported: a peer copy needs 2 or more ranks");
    return 0;
  }
  return 1;
}

static size_t per_peer_bytes(double remote, int n) { return CB_ALIGN_UP((size_t)(remote / (n - 1)), 16); }

static int setup(cb_inst_t *in, char *why, size_t n) {
  cb_moe_state_t *st = cb_moe_state_new(in, 1); /* custom = 1: teardown frees st->pm */
  copy_ce_t *c = calloc(1, sizeof *c);
  if (!c) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  c->st = st;
  c->bytes[0] = per_peer_bytes(st->disp_remote, st->n);
  c->bytes[1] = per_peer_bytes(st->comb_remote, st->n);
  c->per_peer = c->bytes[0] > c->bytes[1] ? c->bytes[0] : c->bytes[1];
  if (c->per_peer < 16) c->per_peer = 16;
  int rc = (st->x = cb_moe_alloc(st, c->per_peer, why, n)) ? 0 : -1;
  char why2[256] = "";
  /* every rank reaches the peer allocation (a collective), even after a local failure */
  int prc = cb_peer_alloc(in->world, c->per_peer * (size_t)st->n, &st->pm, why2, sizeof why2);
  if (rc || prc) {
    if (!rc) snprintf(why, n, "%s", why2);
    free(c);
    cb_moe_teardown(in);
    return -1;
  }
  CB_CUDA(cudaMemset(st->x, 0x5a, c->per_peer));
  in->priv = c;
  in->mem_bytes = st->dev_bytes + c->per_peer * (size_t)st->n;
  in->sms = CB_SMS_COPY_ENGINE;
  snprintf(in->note, sizeof in->note, "copy engine, %.3g + %.3g MB per peer", c->bytes[0] / 1e6, c->bytes[1] / 1e6);
  return 0;
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  copy_ce_t *c = in->priv;
  const cb_moe_state_t *st = c->st;
  for (int k = 1; k < st->n; k++) {
    int q = (st->r + k) % st->n;
    CB_CUDA(cudaMemcpyAsync((char *)st->pm.ptrs[q] + (size_t)st->r * c->per_peer, st->x, c->bytes[phase],
                            cudaMemcpyDeviceToDevice, s));
  }
}

/* Each rank's source holds a byte from (seed, iter, rank); after both phases every region of
 * this rank's buffer must end in its sender's byte. */
static long long check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter) {
  copy_ce_t *c = in->priv;
  cb_moe_state_t *st = c->st;
  const cb_world_t *w = in->world;
  unsigned char mine = (unsigned char)(seed * 131u + (uint64_t)iter * 17u + (uint64_t)st->r * 7u + 1u);
  CB_CUDA(cudaMemsetAsync(st->x, mine, c->per_peer, s));
  CB_CUDA(cudaMemsetAsync(st->pm.ptrs[st->r], 0, c->per_peer * (size_t)st->n, s));
  cb_wait_stream(s);
  cb_mpi_barrier(w->mpi.comm); /* every poison landed before any copy */
  for (int ph = 0; ph < 2; ph++) run(in, ph, s);
  cb_wait_stream(s);
  cb_mpi_barrier(w->mpi.comm); /* every peer's copies into this rank finished */
  long long wrong = 0;
  for (int q = 0; q < st->n; q++) {
    if (q == st->r) continue;
    unsigned char want = (unsigned char)(seed * 131u + (uint64_t)iter * 17u + (uint64_t)q * 7u + 1u), got[16];
    size_t len = c->bytes[0] > c->bytes[1] ? c->bytes[0] : c->bytes[1];
    if (len < 16) continue; /* nothing crosses (no token goes to a peer) */
    CB_CUDA(
        cudaMemcpy(got, (char *)st->pm.ptrs[st->r] + (size_t)q * c->per_peer + len - 16, 16, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; i++) wrong += got[i] != want;
  }
  if (wrong) CB_WARN("moe copy_ce: %lld wrong bytes at the end of the peers' regions", wrong);
  return wrong;
}

static void bytes(const cb_inst_t *in, int phase, cb_bytes_t *out) {
  const copy_ce_t *c = in->priv;
  double per_rank[2] = {(double)c->bytes[0] * (c->st->n - 1), (double)c->bytes[1] * (c->st->n - 1)};
  out->busbw_factor = 1.0;
  out->algbw_bytes = out->remote_bytes = phase < 2 ? per_rank[phase] : per_rank[0] + per_rank[1];
}

static void teardown(cb_inst_t *in) {
  copy_ce_t *c = in->priv;
  if (!c) return;
  in->priv = c->st;
  free(c);
  cb_moe_teardown(in);
}

const cb_algo_t cb_algo_moe_copy_ce = {
    .name = "copy_ce",
    .family = CB_MOE,
    .summary = "reference: copy-engine peer copies of the phases' remote bytes (the link's practical rate)",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_FP8E4M3),
    .nphases = 2,
    .phase_names = phase_names,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = run,
    .check = check,
    .bytes = bytes,
    .teardown = teardown,
};

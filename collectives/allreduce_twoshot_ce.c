/* Custom all-reduce "twoshot_ce": two-shot whose reduce-scatter runs on the copy engines.
 * Per chunk of each shard, a copy-engine copy into the owner's scratch and a stream write of
 * its ready flag; a kernel on a forked stream reduces each chunk as it lands and pushes the
 * result into every output (kernels/allreduce_twoshot_ce.cu says why this is safe).
 *
 * The stream write is the driver's cuStreamWriteValue32, fetched through the runtime
 * (cudaGetDriverEntryPointByVersion) so the program does not link libcuda and still starts on
 * machines without a GPU driver. Chunking is planned in allreduce_plan.c (CB_AR_CE_CHUNK
 * overrides the measured chunk size). The copies to the n-1 peers share the caller's stream,
 * so with more than two ranks they run one after another; measured only at 2 ranks so far. */
#include <stdio.h>
#include <stdlib.h>

#include "allreduce_peer.h"
#include "allreduce_plan.h"
#include "error_gpu.h"

typedef int (*write_value_fn)(cudaStream_t stream, unsigned long long addr, unsigned int value, unsigned int flags);

typedef struct ce_state {
  void *inner;             /* cb_ar_setup's state */
  const cb_ar_launch_t *L; /* its launch arguments */
  cudaStream_t side;
  cudaEvent_t fork, join;
  write_value_fn write_value;
  size_t es;
  int chunks;
} ce_state_t;

/* twoshot's staging and grid rule, from a cap of one block per SM (132 on H200; 64 measured
 * the same from 1 GiB up and slower at 64 MiB). */
static const cb_ar_kind_t kind = {
    .scratch = cb_ar_twoshot_scratch,
    .grid = cb_ar_twoshot_grid,
    .launch = cb_ar_twoshot_ce_launch,
    .default_max_blocks = 0,
};

/* Not while ranks of its node share a GPU: under MPS with 2 ranks on one H200, every rank's
 * reduce kernel waited 60 s for the other's copies; a copy between two buffers of one GPU is not
 * a peer copy, and it evidently waits for SMs the spinning kernels hold. Ranks of different
 * virtual nodes sharing a GPU (2 x 2 on 2 GPUs) do not matter: a world of several nodes is
 * refused first, as "spans N nodes" like every single-node algorithm (gpu_vnodes_2x2_allreduce
 * checks that wording). */
static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_peer_supported_params(w, p, why, n)) return 0;
  if (w->gpu_shared_in_node) {
    snprintf(why, n,
             "not supported: ranks share a GPU (its copies between them then wait behind the reduce "
             "kernels that wait for them)");
    return 0;
  }
  return 1;
}

static int setup(cb_inst_t *in, char *why, size_t n) {
  const uint64_t chunk_bytes = in->world->knobs.ar_ce_chunk;
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q;
  char e[200] = "";
  if (CB_TRY_CUDA(cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &fn, 12000, cudaEnableDefault, &q), e,
                  sizeof e) ||
      q != cudaDriverEntryPointSuccess || !fn) {
    snprintf(why, n, "not supported: the driver has no cuStreamWriteValue32 (%s)", e[0] ? e : "symbol not found");
    return -1;
  }
  if (cb_ar_setup(in, &kind, why, n)) return -1;
  ce_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  st->inner = in->priv;
  st->write_value = (write_value_fn)fn;
  cb_ar_launch_t *L = cb_ar_launch_of(in);
  st->L = L;
  st->es = cb_dtype_size(in->p.dtype);
  cb_ar_ce_plan(L->count, st->es, L->nranks, chunk_bytes, &L->chunk, &st->chunks);
  CB_CUDA(cudaStreamCreateWithFlags(&st->side, cudaStreamNonBlocking));
  CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
  CB_CUDA(cudaEventCreateWithFlags(&st->join, cudaEventDisableTiming));
  in->priv = st;
  char inner[sizeof in->note];
  snprintf(inner, sizeof inner, "%s", in->note);
  snprintf(in->note, sizeof in->note, "%.100s, %d chunks of %zu KiB", inner, st->chunks, L->chunk * st->es >> 10);
  return 0;
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  (void)phase;
  const ce_state_t *st = in->priv;
  const cb_ar_launch_t *L = st->L;
  if (L->count == 0) return;
  const int r = L->rank, n = L->nranks;
  const size_t C = L->chunk, es = st->es;
  const size_t shard = cb_ar_shard_elems(L->count, es, n);

  CB_CUDA(cudaEventRecord(st->fork, s));
  CB_CUDA(cudaStreamWaitEvent(st->side, st->fork, 0));
  cb_ar_twoshot_ce_launch(L, st->side);
  for (int c = 0; c < st->chunks; c++) {
    for (int q = 0; q < n; q++) {
      if (q == r) continue;
      size_t start = (size_t)q * shard, len = cb_piece_len(L->count, shard, (size_t)q);
      size_t c0 = (size_t)c * C, clen = cb_piece_len(len, C, (size_t)c);
      if (clen) {
        char *dst = (char *)L->base[q] + L->scratch_off + ((size_t)r * shard + c0) * es;
        const char *src = (const char *)L->in + (start + c0) * es;
        CB_CUDA(cudaMemcpyAsync(dst, src, clen * es, cudaMemcpyDeviceToDevice, s));
      }
      uint32_t *flag = cb_ar_twoshot_ce_ready_flag((char *)L->base[q] + L->pad_off, c, r);
      int rc = st->write_value(s, (unsigned long long)(uintptr_t)flag, 1, 0);
      if (rc) CB_DIE(CB_EXIT_RUNTIME, "twoshot_ce: cuStreamWriteValue32 to rank %d's flag failed (CUresult %d)", q, rc);
    }
  }
  CB_CUDA(cudaEventRecord(st->join, st->side));
  CB_CUDA(cudaStreamWaitEvent(s, st->join, 0));
}

static void teardown(cb_inst_t *in) {
  ce_state_t *st = in->priv;
  if (!st) return;
  CB_CUDA(cudaStreamSynchronize(st->side));
  CB_CUDA(cudaEventDestroy(st->fork));
  CB_CUDA(cudaEventDestroy(st->join));
  CB_CUDA(cudaStreamDestroy(st->side));
  in->priv = st->inner;
  cb_ar_teardown(in);
  free(st);
}

static void describe(const cb_world_t *w, char *buf, size_t n) {
  const uint64_t chunk = w->knobs.ar_ce_chunk;
  snprintf(buf, n, "chunks of %llu KiB per shard, at most %d", (unsigned long long)(chunk >> 10), CB_AR_CE_MAX_CHUNKS);
}

const cb_algo_t cb_algo_allreduce_twoshot_ce = {
    .name = "twoshot_ce",
    .family = CB_ALLREDUCE,
    .summary = "two-shot, reduce-scatter by copy engines in chunks overlapped with the reduce kernel",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = run,
    .teardown = teardown,
    .describe = describe,
};

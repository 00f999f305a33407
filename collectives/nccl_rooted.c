/* NCCL baselines of the rooted families and hypercube, each the call nccl-tests 2.19 makes
 * (src/broadcast.cu, reduce.cu, gather.cu, scatter.cu, hypercube.cu): ncclBroadcast, ncclReduce,
 * ncclGather and ncclScatter (grouped ncclSend/ncclRecv before NCCL 2.28, as nccl-tests does),
 * and hypercube's log2(n) rounds of pairwise grouped send/recv. Buffers are the shared layout
 * (buffers.h), so the generic check reads them like any other algorithm's. */
#include "error_gpu.h"
#include "nccl_common.h"
#include "rooted.h"

static void run_broadcast(cb_inst_t *in, int phase, cudaStream_t s) {
  CB_NCCL(ncclBroadcast(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), cb_rooted_root(&in->p),
                        in->world->nccl, s));
}

static void run_reduce(cb_inst_t *in, int phase, cudaStream_t s) {
  CB_NCCL(ncclReduce(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), cb_nccl_op(in->p.op),
                     cb_rooted_root(&in->p), in->world->nccl, s));
}

/* gather: every rank's chunk into the root's receive buffer, rank r's at r x count */
static void run_gather(cb_inst_t *in, int phase, cudaStream_t s) {
  if (in->p.count == 0) return; /* nccl-tests' chunk rounds to 0 at the smallest sizes */
  int root = cb_rooted_root(&in->p);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  CB_NCCL(ncclGather(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), root, in->world->nccl, s));
#else
  int n = in->world->mpi.nranks;
  size_t chunk = in->p.count * cb_dtype_size(in->p.dtype);
  ncclDataType_t dt = cb_nccl_dtype(in->p.dtype);
  CB_NCCL(ncclGroupStart());
  CB_NCCL(ncclSend(in->send, in->p.count, dt, root, in->world->nccl, s));
  if (in->world->mpi.rank == root)
    for (int r = 0; r < n; r++)
      CB_NCCL(ncclRecv((char *)in->recv + (size_t)r * chunk, in->p.count, dt, r, in->world->nccl, s));
  CB_NCCL(ncclGroupEnd());
#endif
}

/* scatter: the root's chunk r to rank r */
static void run_scatter(cb_inst_t *in, int phase, cudaStream_t s) {
  if (in->p.count == 0) return;
  int root = cb_rooted_root(&in->p);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  CB_NCCL(ncclScatter(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), root, in->world->nccl, s));
#else
  int n = in->world->mpi.nranks;
  size_t chunk = in->p.count * cb_dtype_size(in->p.dtype);
  ncclDataType_t dt = cb_nccl_dtype(in->p.dtype);
  CB_NCCL(ncclGroupStart());
  if (in->world->mpi.rank == root)
    for (int r = 0; r < n; r++)
      CB_NCCL(ncclSend((const char *)in->send + (size_t)r * chunk, in->p.count, dt, r, in->world->nccl, s));
  CB_NCCL(ncclRecv(in->recv, in->p.count, dt, root, in->world->nccl, s));
  CB_NCCL(ncclGroupEnd());
#endif
}

/* hypercube: my chunk into its place in my receive buffer (in place it is already there), then
 * round k = 0, 1, ...: with partner r ^ 2^k, send the 2^k chunks of my aligned group (starting at
 * r with its low k bits cleared) and receive the partner's group. After log2(n) rounds every rank
 * holds all n chunks. The rank count is a power of two (family_hypercube.c check_ranks). */
static void run_hypercube(cb_inst_t *in, int phase, cudaStream_t s) {
  int n = in->world->mpi.nranks, r = in->world->mpi.rank;
  size_t chunk = in->p.count * cb_dtype_size(in->p.dtype);
  if (chunk == 0) return;
  char *recv = in->recv;
  ncclDataType_t dt = cb_nccl_dtype(in->p.dtype);
  if (recv + (size_t)r * chunk != (char *)in->send)
    CB_CUDA(cudaMemcpyAsync(recv + (size_t)r * chunk, in->send, chunk, cudaMemcpyDeviceToDevice, s));
  for (int mask = 1; mask < n; mask <<= 1) {
    int mine = r & ~(mask - 1), theirs = mine ^ mask;
    CB_NCCL(ncclGroupStart());
    CB_NCCL(ncclSend(recv + (size_t)mine * chunk, in->p.count * (size_t)mask, dt, r ^ mask, in->world->nccl, s));
    CB_NCCL(ncclRecv(recv + (size_t)theirs * chunk, in->p.count * (size_t)mask, dt, r ^ mask, in->world->nccl, s));
    CB_NCCL(ncclGroupEnd());
  }
}

#define NCCL_ROOTED(var, fam, sum, runfn) \
  const cb_algo_t var = {                 \
      .name = "nccl",                     \
      .family = fam,                      \
      .summary = sum,                     \
      .dtypes = CB_ALL_DTYPES,            \
      .ops = CB_ALL_OPS,                  \
      .nphases = 1,                       \
      .graph_ok = 1,                      \
      .supported = cb_nccl_supported,     \
      .setup = cb_nccl_setup_buffers,     \
      .run = runfn,                       \
      .teardown = cb_nccl_teardown,       \
  }

NCCL_ROOTED(cb_algo_nccl_broadcast, CB_BROADCAST, "ncclBroadcast", run_broadcast);
NCCL_ROOTED(cb_algo_nccl_reduce, CB_REDUCE, "ncclReduce", run_reduce);
NCCL_ROOTED(cb_algo_nccl_gather, CB_GATHER, "ncclGather (grouped send/recv before NCCL 2.28)", run_gather);
NCCL_ROOTED(cb_algo_nccl_scatter, CB_SCATTER, "ncclScatter (grouped send/recv before NCCL 2.28)", run_scatter);
NCCL_ROOTED(cb_algo_nccl_hypercube, CB_HYPERCUBE, "log2(n) rounds of pairwise grouped ncclSend/ncclRecv, as nccl-tests",
            run_hypercube);

/* NCCL baselines for the classic collectives: ncclAllReduce, ncclAllGather, ncclReduceScatter,
 * ncclAlltoAll (grouped ncclSend/ncclRecv before NCCL 2.28), the same all-to-all as grouped
 * send/recv, and a ring of ncclSend/ncclRecv (sendrecv). Each is a few lines over the shared
 * buffer layout, so they live together; custom algorithms get a file each. The run functions
 * are exported (nccl_common.h): nccl_registered.c makes the same calls on registered buffers. */
#include "error_gpu.h"
#include "nccl_common.h"

void cb_nccl_run_allreduce(cb_inst_t *in, int phase, cudaStream_t s) {
  CB_NCCL(ncclAllReduce(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), cb_nccl_op(in->p.op),
                        in->world->nccl, s));
}

void cb_nccl_run_allgather(cb_inst_t *in, int phase, cudaStream_t s) {
  CB_NCCL(ncclAllGather(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), in->world->nccl, s));
}

void cb_nccl_run_reducescatter(cb_inst_t *in, int phase, cudaStream_t s) {
  CB_NCCL(ncclReduceScatter(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), cb_nccl_op(in->p.op),
                            in->world->nccl, s));
}

/* All-to-all as grouped point-to-point: what ncclAlltoAll does internally, and what every
 * NCCL before 2.28 needed. */
static void alltoall_p2p(cb_inst_t *in, cudaStream_t s) {
  int n = in->world->mpi.nranks;
  size_t chunk = in->p.count * cb_dtype_size(in->p.dtype);
  ncclDataType_t dt = cb_nccl_dtype(in->p.dtype);
  CB_NCCL(ncclGroupStart());
  for (int peer = 0; peer < n; peer++) {
    CB_NCCL(ncclSend((const char *)in->send + (size_t)peer * chunk, in->p.count, dt, peer, in->world->nccl, s));
    CB_NCCL(ncclRecv((char *)in->recv + (size_t)peer * chunk, in->p.count, dt, peer, in->world->nccl, s));
  }
  CB_NCCL(ncclGroupEnd());
}

void cb_nccl_run_alltoall(cb_inst_t *in, int phase, cudaStream_t s) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  CB_NCCL(ncclAlltoAll(in->send, in->recv, in->p.count, cb_nccl_dtype(in->p.dtype), in->world->nccl, s));
#else
  alltoall_p2p(in, s);
#endif
}

void cb_nccl_run_alltoall_p2p(cb_inst_t *in, int phase, cudaStream_t s) { alltoall_p2p(in, s); }

void cb_nccl_run_sendrecv(cb_inst_t *in, int phase, cudaStream_t s) {
  int n = in->world->mpi.nranks, r = in->world->mpi.rank;
  ncclDataType_t dt = cb_nccl_dtype(in->p.dtype);
  CB_NCCL(ncclGroupStart());
  CB_NCCL(ncclSend(in->send, in->p.count, dt, (r + 1) % n, in->world->nccl, s));
  CB_NCCL(ncclRecv(in->recv, in->p.count, dt, (r - 1 + n) % n, in->world->nccl, s));
  CB_NCCL(ncclGroupEnd());
}

#define NCCL_ALGO(var, fam, nm, sum, runfn) \
  const cb_algo_t var = {                   \
      .name = nm,                           \
      .family = fam,                        \
      .summary = sum,                       \
      .dtypes = CB_ALL_DTYPES,              \
      .ops = CB_ALL_OPS,                    \
      .nphases = 1,                         \
      .graph_ok = 1,                        \
      .supported = cb_nccl_supported,       \
      .setup = cb_nccl_setup_buffers,       \
      .run = runfn,                         \
      .teardown = cb_nccl_teardown,         \
  }

NCCL_ALGO(cb_algo_nccl_allreduce, CB_ALLREDUCE, "nccl", "ncclAllReduce", cb_nccl_run_allreduce);
NCCL_ALGO(cb_algo_nccl_allgather, CB_ALLGATHER, "nccl", "ncclAllGather", cb_nccl_run_allgather);
NCCL_ALGO(cb_algo_nccl_reducescatter, CB_REDUCESCATTER, "nccl", "ncclReduceScatter", cb_nccl_run_reducescatter);
NCCL_ALGO(cb_algo_nccl_alltoall, CB_ALLTOALL, "nccl", "ncclAlltoAll (grouped send/recv before NCCL 2.28)",
          cb_nccl_run_alltoall);
NCCL_ALGO(cb_algo_nccl_alltoall_p2p, CB_ALLTOALL, "nccl_p2p", "grouped ncclSend/ncclRecv to every peer",
          cb_nccl_run_alltoall_p2p);
NCCL_ALGO(cb_algo_nccl_sendrecv, CB_SENDRECV, "nccl", "ring of ncclSend/ncclRecv (rank r sends to r+1)",
          cb_nccl_run_sendrecv);

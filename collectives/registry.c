/* The registry: every algorithm collbench can run, NULL-terminated. Adding an algorithm means
 * one `const cb_algo_t` in its own file and one line here. */
#include <stdio.h>
#include <string.h>

#include "collective.h"
#include "ringattn_schemes.h"

extern const cb_algo_t cb_algo_nccl_allreduce, cb_algo_nccl_allgather, cb_algo_nccl_reducescatter,
    cb_algo_nccl_alltoall, cb_algo_nccl_alltoall_p2p, cb_algo_nccl_sendrecv;
extern const cb_algo_t cb_algo_nccl_symm_allreduce, cb_algo_nccl_symm_allgather, cb_algo_nccl_symm_reducescatter,
    cb_algo_nccl_symm_alltoall;
extern const cb_algo_t cb_algo_nccl_reg_allreduce, cb_algo_nccl_reg_allgather, cb_algo_nccl_reg_reducescatter,
    cb_algo_nccl_reg_alltoall, cb_algo_nccl_reg_sendrecv;
extern const cb_algo_t cb_algo_allreduce_oneshot, cb_algo_allreduce_oneshot_ll, cb_algo_allreduce_twoshot,
    cb_algo_allreduce_twoshot_pull, cb_algo_allreduce_twoshot_ce, cb_algo_allreduce_auto, cb_algo_allreduce_hier,
    cb_algo_alltoall_peer, cb_algo_alltoall_hier, cb_algo_moe_nccl, cb_algo_moe_peer, cb_algo_moe_peer_ll,
    cb_algo_moe_hier, cb_algo_moe_copy_ce;
extern const cb_algo_t cb_algo_nccl_alltoallv, cb_algo_alltoallv_peer, cb_algo_alltoallv_auto;
CB_RA_SCHEMES(CB_RA_ROW_DECLS)

const cb_algo_t *const cb_registry[] = {
    &cb_algo_nccl_allreduce,
    &cb_algo_allreduce_oneshot,
    &cb_algo_allreduce_oneshot_ll,
    &cb_algo_allreduce_twoshot,
    &cb_algo_allreduce_twoshot_pull,
    &cb_algo_allreduce_twoshot_ce,
    &cb_algo_allreduce_auto,
    &cb_algo_allreduce_hier,
    /* Set up after the custom algorithms (one sweep point sets up all at once; at 8 GiB the
     * nine all-reduce algorithms need ~136 GiB): on a full GPU it is a baseline whose row says
     * "not run: ... out of memory", not a custom one. */
    &cb_algo_nccl_symm_allreduce,
    &cb_algo_nccl_reg_allreduce,
    &cb_algo_nccl_allgather,
    &cb_algo_nccl_symm_allgather,
    &cb_algo_nccl_reg_allgather,
    &cb_algo_nccl_reducescatter,
    &cb_algo_nccl_symm_reducescatter,
    &cb_algo_nccl_reg_reducescatter,
    &cb_algo_nccl_alltoall,
    &cb_algo_nccl_alltoall_p2p,
    &cb_algo_alltoall_peer,
    &cb_algo_alltoall_hier,
    &cb_algo_nccl_symm_alltoall,
    &cb_algo_nccl_reg_alltoall,
    &cb_algo_nccl_sendrecv,
    &cb_algo_nccl_reg_sendrecv,
    &cb_algo_moe_nccl,
    &cb_algo_moe_peer,
    &cb_algo_moe_peer_ll,
    &cb_algo_moe_hier,
    &cb_algo_moe_copy_ce,
    /* each ringattn scheme with collbench's block kernel, then with cuDNN's: one line per scheme
     * in collectives/attn/ringattn_schemes.h */
    CB_RA_SCHEMES(CB_RA_ROW_POINTERS) /* single, single_cudnn, ring, ring_cudnn, ... */
        & cb_algo_nccl_alltoallv,
    &cb_algo_alltoallv_peer,
    &cb_algo_alltoallv_auto,
    NULL,
};

const cb_algo_t *cb_algo_find(cb_family_t f, const char *name) {
  for (int i = 0; cb_registry[i]; i++)
    if (cb_registry[i]->family == f && strcmp(cb_registry[i]->name, name) == 0) return cb_registry[i];
  return NULL;
}

void cb_algo_names(cb_family_t f, char *buf, size_t n) {
  size_t off = 0;
  buf[0] = 0;
  for (int i = 0; cb_registry[i] && off < n; i++)
    if (cb_registry[i]->family == f)
      off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? ", " : "", cb_registry[i]->name);
}

/* The NCCL baselines on registered buffers: `nccl_symm` and `nccl_reg`. The same calls as the
 * plain baselines (nccl_classic.c), on buffers NCCL was told about, which is how users reach
 * NCCL's faster paths; the two forms differ only in the registration, so they live together.
 *
 * Both allocate the classic layout (buffers.h, offsets rounded to 4096 B) with ncclMemAlloc,
 * which gives cuMem memory that NCCL can map into its peers, then register it:
 *   nccl_symm  ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC) (NCCL >= 2.27): NCCL may
 *              then run its symmetric-memory kernels for all-reduce, all-gather and
 *              reduce-scatter (lower latency; on 2 x H200 also lower bandwidth from 32 MiB,
 *              README "NCCL at its best"). Collective over the communicator. All-to-all is
 *              included because NCCL reads registered buffers directly there too; sendrecv is
 *              not: NCCL 2.28 has no symmetric send/recv kernels, the row would repeat nccl_reg.
 *   nccl_reg   ncclCommRegister (NCCL >= 2.19): NCCL may read and write the buffers directly
 *              instead of staging through its own; local to the rank. Every family, sendrecv
 *              included: zero-copy point-to-point over NVLink is what it is documented for.
 * NCCL does not say which kernel it then runs (its NCCL_DEBUG=INFO output does), so the row's
 * note names the registration that succeeded and the NCCL version. A failed allocation or
 * registration is a "not run: why" row on every rank. */
#include <stdio.h>
#include <stdlib.h>

#include "../launcher/error_gpu.h"
#include "buffers.h"
#include "nccl_common.h"

/* What the nccl.h this is built against declares; the NCCL loaded at run time is checked
 * separately (world->nccl_version), so a newer header never calls into an older library. */
#define HAVE_WINDOW (NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0))
#define HAVE_REGISTER (NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0))

/* A window must start at a multiple of 4096 B from the base of its cuMem allocation (NCCL checks
 * it; ncclMemAlloc's base is granularity-aligned, so one window from the base qualifies). The
 * receive buffer sits 4096-aligned inside it, and its offset is the same on every rank, which
 * NCCL's zero-copy paths require. */
#ifdef NCCL_WIN_REQUIRED_ALIGNMENT
#define REG_ALIGN NCCL_WIN_REQUIRED_ALIGNMENT
#else
#define REG_ALIGN 4096
#endif

typedef enum reg_kind { REG_WINDOW, REG_LOCAL } reg_kind_t;

typedef struct reg_state {
  reg_kind_t kind;
  void *base; /* ncclMemAlloc, the classic layout (buffers.h) */
  size_t bytes;
  void *handle; /* ncclCommRegister */
#if HAVE_WINDOW
  ncclWindow_t win;
#endif
} reg_state_t;

static const char *call_name(reg_kind_t k) {
  return k == REG_WINDOW ? "ncclCommWindowRegister" : "ncclCommRegister";
}

static int min_version(reg_kind_t k) {
  return k == REG_WINDOW ? NCCL_VERSION(2, 27, 0) : NCCL_VERSION(2, 19, 0);
}

/* "2.28.3" from a version code; codes before 2.9 are X*1000 + Y*100 + Z (nccl.h). */
static void version_text(int code, char *buf, size_t n) {
  if (code < 10000) snprintf(buf, n, "%d.%d.%d", code / 1000, (code / 100) % 10, code % 100);
  else snprintf(buf, n, "%d.%d.%d", code / 10000, (code / 100) % 100, code % 100);
}

/* The fp8 rule of the plain baselines, plus: the nccl.h this is built against has the call, and
 * so does the NCCL loaded at run time. */
static int registered_supported(reg_kind_t kind, const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_nccl_supported(w, p, why, n)) return 0;
  char need[32], have[32];
  version_text(min_version(kind), need, sizeof need);
  int built = kind == REG_WINDOW ? HAVE_WINDOW : HAVE_REGISTER;
  if (!built) {
    snprintf(why, n, "not supported: built against nccl.h %d.%d.%d, which has no %s (needs NCCL >= %s)", NCCL_MAJOR,
             NCCL_MINOR, NCCL_PATCH, call_name(kind), need);
    return 0;
  }
  if (w->nccl_version < min_version(kind)) {
    version_text(w->nccl_version, have, sizeof have);
    snprintf(why, n, "not supported: NCCL %s (loaded at run time) has no %s (needs >= %s)", have, call_name(kind),
             need);
    return 0;
  }
  return 1;
}

static ncclResult_t do_register(reg_state_t *st, ncclComm_t comm) {
#if HAVE_WINDOW
  if (st->kind == REG_WINDOW)
    return ncclCommWindowRegister(comm, st->base, st->bytes, &st->win, NCCL_WIN_COLL_SYMMETRIC);
#endif
#if HAVE_REGISTER
  if (st->kind == REG_LOCAL) return ncclCommRegister(comm, st->base, st->bytes, &st->handle);
#endif
  return ncclInvalidUsage; /* unreachable: supported() refused this build */
}

static void do_deregister(reg_state_t *st, ncclComm_t comm) {
#if HAVE_WINDOW
  if (st->kind == REG_WINDOW) CB_NCCL(ncclCommWindowDeregister(comm, st->win));
#endif
#if HAVE_REGISTER
  if (st->kind == REG_LOCAL) CB_NCCL(ncclCommDeregister(comm, st->handle));
#endif
}

static int registered_setup(reg_kind_t kind, cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  int rank = w->mpi.rank;
  cb_buffer_plan_t plan;
  if (cb_plan_buffers_aligned(&in->p, w->mpi.nranks, rank, REG_ALIGN, &plan, why, n)) return -1;
  reg_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  st->kind = kind;
  st->bytes = plan.total_bytes; /* the same on every rank: window registration requires it */
  char e[256] = "";
  ncclResult_t r = ncclMemAlloc(&st->base, st->bytes);
  if (r != ncclSuccess) {
    snprintf(e, sizeof e, "rank %d: ncclMemAlloc(%zu B): %s", rank, st->bytes, ncclGetErrorString(r));
    st->base = NULL;
    (void)cudaGetLastError(); /* a failed CUDA call inside NCCL must not fail a later launch check */
  }
  /* Window registration is collective: no rank may enter it while another has no buffer, or
   * the ones that did would wait for it until the watchdog fires. */
  if (!cb_mpi_agree(w->mpi.comm, r == ncclSuccess, e, sizeof e)) {
    if (st->base) CB_NCCL(ncclMemFree(st->base));
    free(st);
    snprintf(why, n, "%s", e);
    return -1;
  }
  r = do_register(st, w->nccl);
  if (r != ncclSuccess) {
    snprintf(e, sizeof e, "rank %d: %s(%zu B): %s (%s)", rank, call_name(kind), st->bytes, ncclGetErrorString(r),
             ncclGetLastError(w->nccl));
    (void)cudaGetLastError();
  }
  if (!cb_mpi_agree(w->mpi.comm, r == ncclSuccess, e, sizeof e)) {
    /* A local registration is undone here. A window that only some ranks got cannot be: its
     * deregistration is collective too, so it stays with the communicator, and its memory
     * with it, until the run ends. */
    if (r == ncclSuccess && kind == REG_LOCAL) do_deregister(st, w->nccl);
    if (r != ncclSuccess || kind == REG_LOCAL) CB_NCCL(ncclMemFree(st->base));
    free(st);
    snprintf(why, n, "%s", e);
    return -1;
  }
  in->priv = st;
  in->mem_bytes = st->bytes;
  cb_inst_set_buffers(in, st->base, &plan);
  char v[32];
  version_text(w->nccl_version, v, sizeof v);
  snprintf(in->note, sizeof in->note, "%s (NCCL %s); NCCL_DEBUG=INFO shows the kernel",
           kind == REG_WINDOW ? "window-registered symmetric buffers" : "ncclCommRegister'ed buffers", v);
  return 0;
}

static void registered_teardown(cb_inst_t *in) {
  reg_state_t *st = in->priv;
  if (!st) return;
  do_deregister(st, in->world->nccl);
  CB_NCCL(ncclMemFree(st->base));
  free(st);
  in->priv = NULL;
}

static int symm_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return registered_supported(REG_WINDOW, w, p, why, n);
}
static int reg_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return registered_supported(REG_LOCAL, w, p, why, n);
}
static int symm_setup(cb_inst_t *in, char *why, size_t n) { return registered_setup(REG_WINDOW, in, why, n); }
static int reg_setup(cb_inst_t *in, char *why, size_t n) { return registered_setup(REG_LOCAL, in, why, n); }

/* One algorithm: nccl_<form> in family <fam>, calling cb_nccl_run_<fam>; form is symm or reg
 * (the supported/setup pair above). */
#define WHAT_symm " on symmetric windows (ncclMemAlloc + ncclCommWindowRegister)"
#define WHAT_reg " on ncclMemAlloc buffers registered with ncclCommRegister"
#define REGISTERED_ALGO(form, fam, family_id, call)                                              \
  const cb_algo_t cb_algo_nccl_##form##_##fam = {                                              \
      .name = "nccl_" #form, .family = family_id, .summary = call WHAT_##form,                 \
      .dtypes = CB_ALL_DTYPES, .ops = CB_ALL_OPS, .nphases = 1, .graph_ok = 1,                 \
      .supported = form##_supported, .setup = form##_setup, .run = cb_nccl_run_##fam,          \
      .teardown = registered_teardown,                                                         \
  }

REGISTERED_ALGO(symm, allreduce, CB_ALLREDUCE, "ncclAllReduce");
REGISTERED_ALGO(symm, allgather, CB_ALLGATHER, "ncclAllGather");
REGISTERED_ALGO(symm, reducescatter, CB_REDUCESCATTER, "ncclReduceScatter");
REGISTERED_ALGO(symm, alltoall, CB_ALLTOALL, "ncclAlltoAll");
/* nccl_reg: sendrecv too */
REGISTERED_ALGO(reg, allreduce, CB_ALLREDUCE, "ncclAllReduce");
REGISTERED_ALGO(reg, allgather, CB_ALLGATHER, "ncclAllGather");
REGISTERED_ALGO(reg, reducescatter, CB_REDUCESCATTER, "ncclReduceScatter");
REGISTERED_ALGO(reg, alltoall, CB_ALLTOALL, "ncclAlltoAll");
REGISTERED_ALGO(reg, sendrecv, CB_SENDRECV, "ring of ncclSend/ncclRecv");

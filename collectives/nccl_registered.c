/* Implementation of nccl_registered.h. */
#include "nccl_registered.h"

#include <stdio.h>
#include <stdlib.h>

#include "../launcher/error_gpu.h"
#include "buffers.h"
#include "nccl_common.h"

/* What the nccl.h this is built against declares; the NCCL loaded at run time is checked
 * separately (world->nccl_version), so a newer header never calls into an older library. */
#define HAVE_WINDOW (NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0))
#define HAVE_REGISTER (NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0))

/* Window registration wants the window to start 4096 B into a cuMem allocation (NCCL checks
 * the offset; ncclMemAlloc's base is granularity-aligned); registering each buffer from a 4096 B
 * offset also keeps every send/recv offset identical on all ranks, which NCCL's zero-copy paths
 * require. */
#ifdef NCCL_WIN_REQUIRED_ALIGNMENT
#define REG_ALIGN NCCL_WIN_REQUIRED_ALIGNMENT
#else
#define REG_ALIGN 4096
#endif

typedef struct reg_state {
  cb_nccl_reg_kind_t kind;
  void *base; /* ncclMemAlloc, the classic layout (buffers.h) */
  size_t bytes;
  void *handle; /* ncclCommRegister */
#if HAVE_WINDOW
  ncclWindow_t win;
#endif
} reg_state_t;

static const char *call_name(cb_nccl_reg_kind_t k) {
  return k == CB_NCCL_REG_WINDOW ? "ncclCommWindowRegister" : "ncclCommRegister";
}

static int min_version(cb_nccl_reg_kind_t k) {
  return k == CB_NCCL_REG_WINDOW ? NCCL_VERSION(2, 27, 0) : NCCL_VERSION(2, 19, 0);
}

/* "2.28.3" from a version code; codes before 2.9 are X*1000 + Y*100 + Z (nccl.h). */
static void version_text(int code, char *buf, size_t n) {
  if (code < 10000) snprintf(buf, n, "%d.%d.%d", code / 1000, (code / 100) % 10, code % 100);
  else snprintf(buf, n, "%d.%d.%d", code / 10000, (code / 100) % 100, code % 100);
}

int cb_nccl_registered_supported(cb_nccl_reg_kind_t kind, const cb_world_t *w, const cb_params_t *p, char *why,
                                 size_t n) {
  if (!cb_nccl_supported(w, p, why, n)) return 0;
  char need[32], have[32];
  version_text(min_version(kind), need, sizeof need);
  int built = kind == CB_NCCL_REG_WINDOW ? HAVE_WINDOW : HAVE_REGISTER;
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
  if (st->kind == CB_NCCL_REG_WINDOW)
    return ncclCommWindowRegister(comm, st->base, st->bytes, &st->win, NCCL_WIN_COLL_SYMMETRIC);
#endif
#if HAVE_REGISTER
  if (st->kind == CB_NCCL_REG_LOCAL) return ncclCommRegister(comm, st->base, st->bytes, &st->handle);
#endif
  return ncclInvalidUsage; /* unreachable: supported() refused this build */
}

static void do_deregister(reg_state_t *st, ncclComm_t comm) {
#if HAVE_WINDOW
  if (st->kind == CB_NCCL_REG_WINDOW) CB_NCCL(ncclCommWindowDeregister(comm, st->win));
#endif
#if HAVE_REGISTER
  if (st->kind == CB_NCCL_REG_LOCAL) CB_NCCL(ncclCommDeregister(comm, st->handle));
#endif
}

int cb_nccl_registered_setup(cb_nccl_reg_kind_t kind, cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  int rank = w->mpi.rank;
  cb_buffer_plan_t plan;
  cb_plan_buffers_aligned(&in->p, w->mpi.nranks, rank, REG_ALIGN, &plan);
  reg_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  st->kind = kind;
  st->bytes = plan.total_bytes; /* the same on every rank: window registration requires it */
  char e[256] = "";
  ncclResult_t r = ncclMemAlloc(&st->base, st->bytes);
  if (r != ncclSuccess) {
    snprintf(e, sizeof e, "rank %d: ncclMemAlloc(%zu B): %s", rank, st->bytes, ncclGetErrorString(r));
    st->base = NULL;
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
  if (r != ncclSuccess)
    snprintf(e, sizeof e, "rank %d: %s(%zu B): %s (%s)", rank, call_name(kind), st->bytes, ncclGetErrorString(r),
             ncclGetLastError(w->nccl));
  if (!cb_mpi_agree(w->mpi.comm, r == ncclSuccess, e, sizeof e)) {
    /* A local registration is undone here. A window that only some ranks got cannot be: its
     * deregistration is collective too, so it stays with the communicator, and its memory
     * with it, until the run ends. */
    if (r == ncclSuccess && kind == CB_NCCL_REG_LOCAL) do_deregister(st, w->nccl);
    if (r != ncclSuccess || kind == CB_NCCL_REG_LOCAL) CB_NCCL(ncclMemFree(st->base));
    free(st);
    snprintf(why, n, "%s", e);
    return -1;
  }
  in->priv = st;
  in->mem_bytes = st->bytes;
  cb_inst_set_buffers(in, st->base, &plan);
  char v[32];
  version_text(w->nccl_version, v, sizeof v);
  snprintf(in->note, sizeof in->note, "%s (ncclMemAlloc + %s%s, NCCL %s); NCCL_DEBUG=INFO shows the kernel it ran",
           kind == CB_NCCL_REG_WINDOW ? "symmetric window" : "registered buffers", call_name(kind),
           kind == CB_NCCL_REG_WINDOW ? " NCCL_WIN_COLL_SYMMETRIC" : "", v);
  return 0;
}

void cb_nccl_registered_teardown(cb_inst_t *in) {
  reg_state_t *st = in->priv;
  if (!st) return;
  do_deregister(st, in->world->nccl);
  CB_NCCL(ncclMemFree(st->base));
  free(st);
  in->priv = NULL;
}

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
 * registration is a "not run: why" row on every rank.
 *
 * The registered memory is NOT made and freed per sweep point: each form keeps one allocation,
 * registered once, grows it when a point needs more, and gives it back when the world ends
 * (cb_nccl_registered_release). NCCL caches registrations by address range, and a CUDA graph
 * that used a buffer holds a reference on that cache entry until NCCL processes the graph's
 * destructor, at some later NCCL call. Freeing and reallocating per point (the first version)
 * let ncclMemAlloc hand back the same addresses while the entry, with the peers' mappings of
 * the OLD memory, was still alive; ncclCommRegister then reused it, and the peer wrote into the
 * old memory: all-to-all and sendrecv lost the peer's block (eager rows after graph rows,
 * docs/decisions/nccl-baselines.md). Hence also: a new allocation is always larger than any
 * allocation given back before, so no entry NCCL may still hold can contain it. A row's
 * mem_bytes is that allocation, which may be larger than the row needs.
 *
 * nccl_symm refuses all-gather and reduce-scatter parts that are not 4-byte multiples:
 * NCCL 2.28.3's symmetric kernels gave wrong elements there (symm_part_ok). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "buffers.h"
#include "error_gpu.h"
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

/* One form's registered allocation, kept across sweep points (header). */
typedef struct reg_pool {
  void *base;   /* ncclMemAlloc; NULL: none yet */
  size_t bytes; /* asked of ncclMemAlloc and registered; the same on every rank */
  void *handle; /* ncclCommRegister */
#if HAVE_WINDOW
  ncclWindow_t win;
#endif
} reg_pool_t;

/* The registered allocations of one world, kept across sweep points; the world owns it
 * (cb_world_t.nccl_reg: made at the rank start, released before the communicator goes). */
struct cb_nccl_reg_state {
  reg_pool_t pools[2];   /* indexed by reg_kind_t */
  size_t given_back_max; /* the largest allocation freed so far, as the driver sized it */
};

cb_nccl_reg_state_t *cb_nccl_registered_state_new(void) {
  cb_nccl_reg_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  return st;
}

static const char *call_name(reg_kind_t k) { return k == REG_WINDOW ? "ncclCommWindowRegister" : "ncclCommRegister"; }

static int min_version(reg_kind_t k) { return k == REG_WINDOW ? NCCL_VERSION(2, 27, 0) : NCCL_VERSION(2, 19, 0); }

/* "2.28.3" from a version code; codes before 2.9 are X*1000 + Y*100 + Z (nccl.h). */
/* The fp8 rule of the plain baselines, plus: the nccl.h this is built against has the call, and
 * so does the NCCL loaded at run time. */
static int registered_supported(reg_kind_t kind, const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_nccl_supported(w, p, why, n)) return 0;
  char need[32], have[32];
  cb_nccl_version_text(min_version(kind), need, sizeof need);
  int built = kind == REG_WINDOW ? HAVE_WINDOW : HAVE_REGISTER;
  if (!built) {
    snprintf(why, n, "not supported: built against nccl.h %d.%d.%d, which has no %s (needs NCCL >= %s)", NCCL_MAJOR,
             NCCL_MINOR, NCCL_PATCH, call_name(kind), need);
    return 0;
  }
  if (w->nccl_version < min_version(kind)) {
    cb_nccl_version_text(w->nccl_version, have, sizeof have);
    snprintf(why, n, "not supported: NCCL %s (loaded at run time) has no %s (needs >= %s)", have, call_name(kind),
             need);
    return 0;
  }
  return 1;
}

static ncclResult_t do_register(reg_kind_t kind, reg_pool_t *pl, ncclComm_t comm) {
#if HAVE_WINDOW
  if (kind == REG_WINDOW) return ncclCommWindowRegister(comm, pl->base, pl->bytes, &pl->win, NCCL_WIN_COLL_SYMMETRIC);
#endif
#if HAVE_REGISTER
  if (kind == REG_LOCAL) return ncclCommRegister(comm, pl->base, pl->bytes, &pl->handle);
#endif
  return ncclInvalidUsage; /* unreachable: supported() refused this build */
}

static void do_deregister(reg_kind_t kind, reg_pool_t *pl, ncclComm_t comm) {
#if HAVE_WINDOW
  if (kind == REG_WINDOW) CB_NCCL(ncclCommWindowDeregister(comm, pl->win));
#endif
#if HAVE_REGISTER
  if (kind == REG_LOCAL) CB_NCCL(ncclCommDeregister(comm, pl->handle));
#endif
}

/* cuMemGetAddressRange through the runtime, so the program does not link libcuda: the size the
 * driver gave the allocation at p (ncclMemAlloc rounds up to its granularity). */
typedef int (*addr_range_fn)(unsigned long long *base, size_t *size, unsigned long long ptr);

static size_t allocation_size(void *p) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q;
  CB_CUDA(cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !fn) CB_DIE(CB_EXIT_RUNTIME, "the driver has no cuMemGetAddressRange");
  unsigned long long base = 0;
  size_t size = 0;
  int rc = ((addr_range_fn)fn)(&base, &size, (unsigned long long)(uintptr_t)p);
  if (rc != 0) CB_DIE(CB_EXIT_RUNTIME, "cuMemGetAddressRange(%p) failed: CUresult %d", p, rc);
  return size;
}

/* Gives a registered allocation back (its registration first) and remembers how large it was. */
static void give_back(cb_nccl_reg_state_t *st, reg_kind_t kind, reg_pool_t *pl, ncclComm_t comm) {
  do_deregister(kind, pl, comm);
  size_t sz = allocation_size(pl->base);
  if (sz > st->given_back_max) st->given_back_max = sz;
  CB_NCCL(ncclMemFree(pl->base));
  memset(pl, 0, sizeof *pl);
}

/* Replaces the form's allocation with a registered one of at least `need` bytes, larger than
 * anything given back before; the old one is given back only once the new one is registered,
 * so the new one cannot take its addresses. Collective (window registration is); on failure
 * the old allocation stays and why says what failed on which rank. */
static int grow(reg_kind_t kind, const cb_world_t *w, size_t need, char *why, size_t n) {
  cb_nccl_reg_state_t *st = w->nccl_reg;
  int rank = w->mpi.rank;
  unsigned long long want = need > st->given_back_max ? need : st->given_back_max + 1;
  want = (want + REG_ALIGN - 1) / REG_ALIGN * REG_ALIGN;
  CB_MPI(MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, w->mpi.comm));
  reg_pool_t fresh;
  memset(&fresh, 0, sizeof fresh);
  fresh.bytes = (size_t)want;
  char e[256] = "";
  ncclResult_t r = ncclMemAlloc(&fresh.base, fresh.bytes);
  if (r != ncclSuccess) {
    snprintf(e, sizeof e, "rank %d: ncclMemAlloc(%zu B): %s", rank, fresh.bytes, ncclGetErrorString(r));
    fresh.base = NULL;
    (void)cudaGetLastError(); /* a failed CUDA call inside NCCL must not fail a later launch check */
  }
  /* Window registration is collective: no rank may enter it while another has no buffer, or
   * the ones that did would wait for it until the watchdog fires. */
  if (!cb_mpi_agree(w->mpi.comm, r == ncclSuccess, e, sizeof e)) {
    if (fresh.base) CB_NCCL(ncclMemFree(fresh.base));
    snprintf(why, n, "%s", e);
    return -1;
  }
  r = do_register(kind, &fresh, w->nccl);
  if (r != ncclSuccess) {
    snprintf(e, sizeof e, "rank %d: %s(%zu B): %s (%s)", rank, call_name(kind), fresh.bytes, ncclGetErrorString(r),
             ncclGetLastError(w->nccl));
    (void)cudaGetLastError();
  }
  if (!cb_mpi_agree(w->mpi.comm, r == ncclSuccess, e, sizeof e)) {
    /* A local registration is undone here (no graph has used it). A window that only some
     * ranks got cannot be: its deregistration is collective too, so it stays with the
     * communicator, and its memory with it, until the run ends. */
    if (r == ncclSuccess && kind == REG_LOCAL) do_deregister(kind, &fresh, w->nccl);
    if (r != ncclSuccess || kind == REG_LOCAL) CB_NCCL(ncclMemFree(fresh.base));
    snprintf(why, n, "%s", e);
    return -1;
  }
  if (st->pools[kind].base) give_back(st, kind, &st->pools[kind], w->nccl);
  st->pools[kind] = fresh;
  return 0;
}

static int registered_setup(reg_kind_t kind, cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  cb_buffer_plan_t plan;
  if (cb_plan_buffers_aligned(&in->p, w->mpi.nranks, w->mpi.rank, REG_ALIGN, &plan, why, n)) return -1;
  /* plan.total_bytes is the same on every rank, so every rank grows or none does */
  reg_pool_t *pool = &w->nccl_reg->pools[kind];
  if (pool->bytes < plan.total_bytes && grow(kind, w, plan.total_bytes, why, n)) return -1;
  in->priv = pool;
  in->mem_bytes = pool->bytes;
  cb_inst_set_buffers(in, pool->base, &plan);
  char v[32];
  cb_nccl_version_text(w->nccl_version, v, sizeof v);
  snprintf(in->note, sizeof in->note, "%s (NCCL %s); NCCL_DEBUG=INFO shows the kernel",
           kind == REG_WINDOW ? "window-registered symmetric buffers" : "ncclCommRegister'ed buffers", v);
  return 0;
}

/* The allocation stays registered for the next sweep point (header); it goes back in
 * cb_nccl_registered_release. */
static void registered_teardown(cb_inst_t *in) { in->priv = NULL; }

void cb_nccl_registered_release(ncclComm_t comm, cb_nccl_reg_state_t *st) {
  if (!st) return;
  for (int k = 0; k < 2; k++)
    if (st->pools[k].base) give_back(st, (reg_kind_t)k, &st->pools[k], comm);
  free(st);
}

/* NCCL 2.28.3's symmetric all-gather and reduce-scatter kernels returned wrong elements (not
 * the poison: stale or partly written values) whenever a rank's part was not a multiple of
 * 4 bytes and larger than 8 bytes (10, 2050 and 32770 B: 1- and 2-byte types at odd counts);
 * 4-byte multiples were exact at every size (docs/decisions/nccl-baselines.md). NCCL documents no
 * such limit, so it is refused here for every 1- and 2-byte part that is not a 4-byte multiple,
 * the ones that happened to pass (2 and 6 B) included. */
static int symm_part_ok(const cb_params_t *p, char *why, size_t n) {
  if (p->family != CB_ALLGATHER && p->family != CB_REDUCESCATTER) return 1;
  size_t part = p->count * cb_dtype_size(p->dtype);
  if (part % 4 == 0) return 1;
  snprintf(why, n,
           "not supported: each rank's part is %zu B, not a multiple of 4 B; NCCL 2.28.3's symmetric %s gave wrong "
           "elements for such parts (docs/decisions/nccl-baselines.md)",
           part, cb_family_name(p->family));
  return 0;
}

static int symm_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return registered_supported(REG_WINDOW, w, p, why, n) && symm_part_ok(p, why, n);
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
#define REGISTERED_ALGO(form, fam, family_id, call) \
  const cb_algo_t cb_algo_nccl_##form##_##fam = {   \
      .name = "nccl_" #form,                        \
      .family = family_id,                          \
      .summary = call WHAT_##form,                  \
      .dtypes = CB_ALL_DTYPES,                      \
      .ops = CB_ALL_OPS,                            \
      .nphases = 1,                                 \
      .graph_ok = 1,                                \
      .supported = form##_supported,                \
      .setup = form##_setup,                        \
      .run = cb_nccl_run_##fam,                     \
      .teardown = registered_teardown,              \
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

/* CPU test of the classic buffer layout's alignment (collectives/buffers.h), plain and with the 4096-byte
 * alignment of the registered NCCL forms: offsets and totals are multiples of the alignment,
 * both buffers fit, out-of-place buffers do not overlap, in-place ones sit where nccl-tests
 * puts them, the total is the same on every rank (NCCL's window registration needs equal sizes)
 * and cb_plan_buffers is the 256-byte case. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buffers.h"
#include "cb_testing.h"

static const cb_family_t FAMILIES[] = {CB_ALLREDUCE, CB_ALLGATHER, CB_REDUCESCATTER, CB_ALLTOALL, CB_SENDRECV};
static const cb_dtype_t DTYPES[] = {CB_FLOAT, CB_BF16, CB_FP8E4M3};
static const size_t COUNTS[] = {1, 3, 1000, 4099, (size_t)1 << 20};
static const int NRANKS[] = {1, 2, 3, 8};

static void check_one(cb_family_t fam, cb_dtype_t dt, size_t count, int inplace, int nranks, size_t align) {
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = fam;
  p.dtype = dt;
  p.count = count;
  p.inplace = inplace;
  size_t es = cb_dtype_size(dt), n = (size_t)nranks;
  size_t total0 = 0;
  for (int rank = 0; rank < nranks; rank++) {
    cb_buffer_plan_t b;
    char why[256];
    CHECK(cb_plan_buffers_aligned(&p, nranks, rank, align, &b, why, sizeof why) == 0, "%s", why);
    const char *what = cb_family_name(fam);
    size_t sb = b.send_elems * es, rb = b.recv_elems * es;
    CHECK(b.total_bytes > 0 && b.total_bytes % align == 0, "%s count %zu align %zu: total %zu", what, count, align,
          b.total_bytes);
    CHECK(b.send_off + sb <= b.total_bytes && b.recv_off + rb <= b.total_bytes,
          "%s count %zu rank %d: send [%zu,+%zu) or recv [%zu,+%zu) past %zu", what, count, rank, b.send_off, sb,
          b.recv_off, rb, b.total_bytes);
    if (rank == 0) total0 = b.total_bytes;
    CHECK(b.total_bytes == total0, "%s count %zu: rank %d total %zu, rank 0 %zu", what, count, rank, b.total_bytes,
          total0);
    if (!inplace) {
      CHECK(b.send_off == 0 && b.recv_off % align == 0 && b.recv_off >= sb,
            "%s count %zu align %zu: send at %zu (%zu B), recv at %zu", what, count, align, b.send_off, sb, b.recv_off);
    } else if (fam == CB_ALLGATHER) {
      CHECK(b.recv_off == 0 && b.send_off == (size_t)rank * count * es, "allgather in place rank %d: send at %zu", rank,
            b.send_off);
    } else if (fam == CB_REDUCESCATTER) {
      CHECK(b.send_off == 0 && b.recv_off == (size_t)rank * count * es, "reducescatter in place rank %d: recv at %zu",
            rank, b.recv_off);
    } else {
      CHECK(b.send_off == 0 && b.recv_off == 0, "%s in place: send at %zu, recv at %zu", what, b.send_off, b.recv_off);
    }
    size_t want_send = fam == CB_REDUCESCATTER || fam == CB_ALLTOALL ? n * count : count;
    size_t want_recv = fam == CB_ALLGATHER || fam == CB_ALLTOALL ? n * count : count;
    CHECK(b.send_elems == want_send && b.recv_elems == want_recv, "%s count %zu x %d ranks: %zu/%zu elements", what,
          count, nranks, b.send_elems, b.recv_elems);
    if (align == 256) {
      cb_buffer_plan_t plain;
      CHECK(cb_plan_buffers(&p, nranks, rank, &plain, why, sizeof why) == 0, "%s", why);
      CHECK(memcmp(&plain, &b, sizeof b) == 0, "%s count %zu: cb_plan_buffers differs from the 256-byte plan", what,
            count);
    }
  }
}

int main(void) {
  for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++)
    for (size_t d = 0; d < sizeof DTYPES / sizeof DTYPES[0]; d++)
      for (size_t c = 0; c < sizeof COUNTS / sizeof COUNTS[0]; c++)
        for (size_t r = 0; r < sizeof NRANKS / sizeof NRANKS[0]; r++)
          for (int inplace = 0; inplace <= cb_family_info(FAMILIES[f])->has_inplace; inplace++) {
            check_one(FAMILIES[f], DTYPES[d], COUNTS[c], inplace, NRANKS[r], 256);
            check_one(FAMILIES[f], DTYPES[d], COUNTS[c], inplace, NRANKS[r], 4096);
          }
  /* the registered forms' case by hand: 1000 float out of place -> send 4000 B, recv at 4096 */
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = CB_ALLREDUCE;
  p.dtype = CB_FLOAT;
  p.count = 1000;
  cb_buffer_plan_t b;
  char why[256];
  CHECK(cb_plan_buffers_aligned(&p, 2, 0, 4096, &b, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(b.recv_off, 4096);
  CHECK_EQ_INT(b.total_bytes, 8192);
  return cb_test_finish("buffers");
}

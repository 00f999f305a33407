/* MPI test on CPU ranks (no CUDA) of alltoallv planning, run by run_mpi_case.py under mpirun
 * -np 2, 3 and 4. Every rank parses the same command line (reading the matrix file itself, as
 * collbench's ranks do), runs the family's rank check and plans each point; then the counts
 * drive a real MPI_Alltoallv of bytes, the exchange the NCCL and peer algorithms make, checked
 * byte by byte. For every counts mode (uniform, spread, spread:0.3, matrix:FILE, moe, trace:FILE) and a few
 * points and element sizes:
 *   - every rank plans the same size and count columns (MPI_Allreduce min = max), and the size
 *     column is the largest send or receive total over the ranks' own totals;
 *   - each rank's block from source s holds what s put at the offset of that block in its send
 *     buffer (cb_a2av_send_offset) and lands at cb_a2av_recv_offset;
 *   - a matrix of the wrong side, and a moe or trace expert split the rank count does not
 *     divide, are refused
 *     on every rank with the same line.
 * Rank 0 writes the matrix and trace files (base/newfile.h) before the others read them. It prints
 * "PASS alltoallv (N ranks)" when every rank's checks hold. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alltoallv_family.h"
#include "args.h"
#include "cb_testing.h"
#include "error.h"
#include "newfile.h"

static int me, nranks;
static cb_args_t A;

static void write_file(const char *path, const char *text) {
  FILE *f = cb_newfile_replace(path);
  if (!f || fputs(text, f) < 0 || fclose(f)) CB_DIE(CB_EXIT_RUNTIME, "mpi_alltoallv: cannot write %s", path);
}

/* a routing trace of 64 tokens per rank over mixtral's 8 experts, top-2 (or one expert) */
static void write_trace(const char *path, int n) {
  char text[16384];
  size_t off = (size_t)snprintf(text, sizeof text, "# rank experts\n");
  for (int r = 0; r < n; r++)
    for (int t = 0; t < 64; t++) {
      int e0 = (r * 5 + t * 3) % 8, e1 = (r + t * 7 + 1) % 8;
      if (t % 5 == 0 || e1 == e0) off += (size_t)snprintf(text + off, sizeof text - off, "%d %d\n", r, e0);
      else off += (size_t)snprintf(text + off, sizeof text - off, "%d %d %d\n", r, e0, e1);
    }
  write_file(path, text);
}

/* an n x n matrix with zeros, values that round down to 16 and a heavy diagonal neighbour */
static void write_matrix(const char *path, int n) {
  char text[4096];
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      off += (size_t)snprintf(text + off, sizeof text - off, "%s%d", j ? " " : "",
                              (i + j) % 3 == 0 ? 0 : 1000 * ((i * 7 + j * 3) % 5 + 1) + 17 * i);
    off += (size_t)snprintf(text + off, sizeof text - off, "\n");
  }
  write_file(path, text);
}

static uint8_t byte_of(int src, uint64_t offset) {
  return (uint8_t)((offset * 131u + (uint64_t)src * 29u + 7u) & 0xff);
}

/* the same verdict and line on every rank */
static void check_agreed(int ok, const char *why, const char *what) {
  int all_ok = 0, any_ok = 0;
  CB_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CB_MPI(MPI_Allreduce(&ok, &any_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(all_ok == any_ok, "rank %d: %s: ranks disagree", me, what);
  char line[512], first[512];
  snprintf(line, sizeof line, "%s", why);
  memcpy(first, line, sizeof line);
  CB_MPI(MPI_Bcast(first, sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD));
  CHECK(strcmp(first, line) == 0, "rank %d: %s: '%s', rank 0 said '%s'", me, what, line, first);
}

static int parse(const char *line, char *err, size_t n) {
  char buf[2048], *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "collbench %s", line);
  for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  err[0] = 0;
  return cb_args_parse(argc, argv, &A, err, n);
}

static void exchange(const char *line, cb_dtype_t dt) {
  const cb_family_info_t *fi = cb_family_info(CB_ALLTOALLV);
  char err[1024];
  CHECK(parse(line, err, sizeof err) == CB_ARGS_OK, "rank %d: '%s': %s", me, line, err);
  char why[512] = "";
  int ok = fi->check_ranks(cb_args_config(&A), nranks, &dt, 1, why, sizeof why) == 0;
  check_agreed(ok, why, line);
  CHECK(ok, "rank %d: '%s' refused: %s", me, line, why);
  if (!ok) return;
  for (int i = 0; i < A.npoints; i++) {
    cb_params_t p;
    memset(&p, 0, sizeof p);
    p.family = CB_ALLTOALLV;
    p.dtype = dt;
    p.point = A.points[i];
    p.config = cb_args_config(&A);
    p.seed = 1234;
    char what[256];
    int planned = fi->plan(&p, nranks, "eager", what, sizeof what, why, sizeof why) == 0;
    /* every block rounds to 0 B (nccl-tests' 16-byte blocks): a row that says so, size column 0;
     * any other refusal, or a measured row of 0 B (plots/ refuses those), is wrong */
    CHECK(planned || (p.bytes == 0 && strstr(why, "round to 0 per peer")), "rank %d: '%s' at %llu B: %s", me, line,
          (unsigned long long)p.point, why);
    CHECK(!planned || p.bytes > 0, "rank %d: '%s' at %llu B: planned with 0 bytes", me, line,
          (unsigned long long)p.point);
    if (!planned) continue;
    uint64_t cols[2] = {p.bytes, p.count}, lo[2], hi[2];
    CB_MPI(MPI_Allreduce(cols, lo, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD));
    CB_MPI(MPI_Allreduce(cols, hi, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo[0] == hi[0] && lo[1] == hi[1], "rank %d: '%s': the ranks plan different columns", me, line);

    cb_a2av_counts_t k;
    CHECK(cb_a2av_counts_make(cb_a2av_cfg(&p), p.point, cb_dtype_size(dt), nranks, p.seed, &k, why, sizeof why) == 0,
          "%s", why);
    uint64_t mine[2] = {cb_a2av_send_total(&k, me), cb_a2av_recv_total(&k, me)}, most[2];
    CB_MPI(MPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
    uint64_t size = most[0] > most[1] ? most[0] : most[1];
    CHECK(p.bytes == size, "rank %d: '%s': size column %llu, the largest total is %llu", me, line,
          (unsigned long long)p.bytes, (unsigned long long)size);

    int *sc = calloc((size_t)nranks, sizeof(int)), *sd = calloc((size_t)nranks, sizeof(int));
    int *rc = calloc((size_t)nranks, sizeof(int)), *rd = calloc((size_t)nranks, sizeof(int));
    uint8_t *sb = malloc(mine[0] + 1), *rb = malloc(mine[1] + 1);
    if (!sc || !sd || !rc || !rd || !sb || !rb) CB_DIE(CB_EXIT_RUNTIME, "mpi_alltoallv: out of memory");
    for (int q = 0; q < nranks; q++) {
      sc[q] = (int)cb_a2av_cell(&k, me, q);
      sd[q] = (int)cb_a2av_send_offset(&k, me, q);
      rc[q] = (int)cb_a2av_cell(&k, q, me);
      rd[q] = (int)cb_a2av_recv_offset(&k, q, me);
    }
    for (uint64_t b = 0; b < mine[0]; b++) sb[b] = byte_of(me, b);
    memset(rb, 0xAA, mine[1] + 1);
    CB_MPI(MPI_Alltoallv(sb, sc, sd, MPI_BYTE, rb, rc, rd, MPI_BYTE, MPI_COMM_WORLD));
    long wrong = 0;
    for (int s = 0; s < nranks; s++) {
      uint64_t from = cb_a2av_send_offset(&k, s, me);
      for (int b = 0; b < rc[s]; b++) wrong += rb[rd[s] + b] != byte_of(s, from + (uint64_t)b);
    }
    CHECK(wrong == 0, "rank %d: '%s' %s at %llu B: %ld bytes wrong", me, line, cb_dtype_name(dt),
          (unsigned long long)p.point, wrong);
    CHECK(rb[mine[1]] == 0xAA, "rank %d: '%s': written past the receive total", me, line);
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
    cb_a2av_counts_free(&k);
  }
  cb_a2av_config_t *c = cb_args_config(&A);
  cb_a2av_config_release(c);
}

static void refused(const char *line, const char *want) {
  const cb_family_info_t *fi = cb_family_info(CB_ALLTOALLV);
  char err[1024], why[512] = "";
  cb_dtype_t dt = CB_FLOAT;
  CHECK(parse(line, err, sizeof err) == CB_ARGS_OK, "rank %d: '%s': %s", me, line, err);
  int ok = fi->check_ranks(cb_args_config(&A), nranks, &dt, 1, why, sizeof why) == 0;
  check_agreed(ok, why, line);
  CHECK(!ok, "rank %d: '%s' accepted on %d ranks", me, line, nranks);
  CHECK(strstr(why, want) != NULL, "rank %d: '%s': '%s' lacks '%s'", me, line, why, want);
  cb_a2av_config_t *c = cb_args_config(&A);
  cb_a2av_config_release(c);
}

int main(int argc, char **argv) {
  CB_MPI(MPI_Init(&argc, &argv));
  CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  CB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  const char *dir = argc > 1 ? argv[1] : ".";
  char good[1024], wrong_side[1024], trace[1024], line[2300];
  snprintf(good, sizeof good, "%s/a2av-matrix-%d.txt", dir, nranks);
  snprintf(wrong_side, sizeof wrong_side, "%s/a2av-matrix-%d-side.txt", dir, nranks);
  snprintf(trace, sizeof trace, "%s/a2av-trace-%d.txt", dir, nranks);
  if (me == 0) {
    mkdir(dir, 0700);
    write_matrix(good, nranks);
    write_matrix(wrong_side, nranks + 1);
    write_trace(trace, nranks);
  }
  CB_MPI(MPI_Barrier(MPI_COMM_WORLD));

  static const cb_dtype_t dts[] = {CB_FLOAT, CB_BF16, CB_FP8E4M3};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
    exchange("alltoallv --counts uniform --sizes 0,8,100,4096,65536,1000000", dts[d]);
    exchange("alltoallv --counts spread --sizes 8,100,4096,65536,1000000", dts[d]);
    exchange("alltoallv --counts spread:0.3 --sizes 4096,1000000", dts[d]);
    snprintf(line, sizeof line, "alltoallv --counts matrix:%s --sizes 1M", good);
    exchange(line, dts[d]);
  }
  if (8 % nranks == 0) exchange("alltoallv --counts moe --model mixtral-8x7b --sizes 4096,1000000", CB_BF16);
  else refused("alltoallv --counts moe --model mixtral-8x7b", "divisible");
  if (128 % nranks == 0)
    exchange("alltoallv --counts moe --model qwen3-30b-a3b --routing hot:2:4 --sizes 65536", CB_BF16);
  snprintf(line, sizeof line, "alltoallv --counts trace:%s --model mixtral-8x7b --sizes 4096,1000000", trace);
  if (8 % nranks == 0) exchange(line, CB_BF16);
  else refused(line, "divisible");
  snprintf(line, sizeof line, "alltoallv --counts matrix:%s --sizes 1M", wrong_side);
  refused(line, "the matrix must be ranks x ranks");

  int failures = cb_test_failures, total = 0;
  CB_MPI(MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (me == 0 && total == 0) printf("PASS alltoallv (%d ranks)\n", nranks);
  CB_MPI(MPI_Finalize());
  return total ? 1 : 0;
}

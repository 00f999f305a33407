/* Does NCCL's socket transport move one rank's off-node bytes faster as two messages to two
 * peers (a plain all-to-all across 2 nodes x 2 ranks) than as one message to one peer (the
 * rail exchange of collbench's `hier` all-to-all, collectives/alltoall_hier.c), and does
 * splitting that one message help? Issue 13: `hier` all-to-all runs 0.77-0.92x NCCL at 1 MiB
 * per rank on 2 x 2 virtual nodes.
 *
 * 4 ranks, every rank its own NCCL "host" (NCCL_HOSTID set by run.sh), so every connection is
 * a socket one, as between the virtual nodes; all on one GPU (the network part only: the
 * NVLink part of both forms is not here). Rank r = 2 * pair + l; the other pair's ranks are
 * o0, o1, the rail peer is o0 + l. X bytes leave and X arrive per rank, per pattern:
 *   a2a    X/2 to o0 and X/2 to o1 (what NCCL's all-to-all sends off-node at 2 x 2)
 *   rail   X to the rail peer in one message (hier today)
 *   rail2  two messages of X/2 to the rail peer, one group, one communicator
 *   railc2 X/2 to the rail peer on each of two communicators, one group
 * Each timing: ITERS exchanges back to back on one stream after a barrier, wall time over
 * ITERS, the largest over the ranks; patterns alternate within a round; ROUNDS rounds; the
 * median round is printed (and min, max).
 * Usage: probe X_BYTES... (rank 0 prints one line per size and pattern). */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 9
#define ITERS 20
#define NPAT 4

#define CK(x)                                                                                                   \
  do {                                                                                                          \
    cudaError_t e_ = (x);                                                                                       \
    if (e_ != cudaSuccess) {                                                                                    \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                              \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                             \
    }                                                                                                           \
  } while (0)
#define NK(x)                                                                                                   \
  do {                                                                                                          \
    ncclResult_t r_ = (x);                                                                                      \
    if (r_ != ncclSuccess) {                                                                                    \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(r_));                               \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                             \
    }                                                                                                           \
  } while (0)

static const char *names[NPAT] = {"a2a", "rail", "rail2", "railc2"};

static ncclComm_t new_comm(int rank, int n) {
  ncclUniqueId id;
  if (rank == 0) NK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t c;
  NK(ncclCommInitRank(&c, n, id, rank));
  return c;
}

static void exchange(int pat, ncclComm_t c1, ncclComm_t c2, int rank, char *sb, char *rb, size_t X, cudaStream_t s) {
  const int o0 = rank < 2 ? 2 : 0, rail = o0 + rank % 2;
  const size_t h = X / 2;
  NK(ncclGroupStart());
  switch (pat) {
  case 0:
    for (int i = 0; i < 2; i++) {
      NK(ncclSend(sb + i * h, h, ncclUint8, o0 + i, c1, s));
      NK(ncclRecv(rb + i * h, h, ncclUint8, o0 + i, c1, s));
    }
    break;
  case 1:
    NK(ncclSend(sb, X, ncclUint8, rail, c1, s));
    NK(ncclRecv(rb, X, ncclUint8, rail, c1, s));
    break;
  default:
    for (int i = 0; i < 2; i++) {
      ncclComm_t c = pat == 3 && i == 1 ? c2 : c1;
      NK(ncclSend(sb + i * h, h, ncclUint8, rail, c, s));
      NK(ncclRecv(rb + i * h, h, ncclUint8, rail, c, s));
    }
  }
  NK(ncclGroupEnd());
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n != 4 || argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np 4 probe X_BYTES... (exactly 4 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  size_t maxX = 0;
  for (int a = 1; a < argc; a++) {
    char *end;
    unsigned long long v = strtoull(argv[a], &end, 10);
    if (*end || v < 2 || v % 2 || v > (1ull << 31)) {
      if (rank == 0) fprintf(stderr, "probe: size %.40s: an even number of bytes from 2 to 2^31\n", argv[a]);
      MPI_Finalize();
      return 2;
    }
    if (v > maxX) maxX = v;
  }
  CK(cudaSetDevice(0));
  ncclComm_t c1 = new_comm(rank, n), c2 = new_comm(rank, n);
  char *sb, *rb;
  CK(cudaMalloc((void **)&sb, maxX));
  CK(cudaMalloc((void **)&rb, maxX));
  CK(cudaMemset(sb, rank + 1, maxX));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (rank == 0) printf("%-10s %-7s %10s %10s %10s  (us per exchange, %d rounds of %d)\n", "X_bytes", "pattern", "median", "min", "max", ROUNDS, ITERS);
  for (int a = 1; a < argc; a++) {
    const size_t X = strtoull(argv[a], NULL, 10);
    double t[NPAT][ROUNDS];
    for (int p = 0; p < NPAT; p++) exchange(p, c1, c2, rank, sb, rb, X, s); /* warm-up: connections */
    CK(cudaStreamSynchronize(s));
    for (int r = 0; r < ROUNDS; r++)
      for (int p = 0; p < NPAT; p++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < ITERS; i++) exchange(p, c1, c2, rank, sb, rb, X, s);
        CK(cudaStreamSynchronize(s));
        double dt = (MPI_Wtime() - t0) / ITERS * 1e6, mx;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[p][r] = mx;
      }
    /* every byte arrived: rank r's receive buffer holds the senders' fill values */
    char *h = malloc(X);
    CK(cudaMemcpy(h, rb, X, cudaMemcpyDeviceToHost));
    const int o0 = rank < 2 ? 2 : 0;
    long bad = 0;
    for (size_t i = 0; i < X; i++) bad += h[i] != (char)(o0 + rank % 2 + 1); /* last pattern: rail peer */
    free(h);
    long allbad;
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      for (int p = 0; p < NPAT; p++) {
        qsort(t[p], ROUNDS, sizeof(double), cmp);
        printf("%-10zu %-7s %10.1f %10.1f %10.1f\n", X, names[p], t[p][ROUNDS / 2], t[p][0], t[p][ROUNDS - 1]);
      }
      printf("%-10zu wrong bytes after railc2: %ld\n", X, allbad);
    }
  }
  NK(ncclCommDestroy(c1));
  NK(ncclCommDestroy(c2));
  CK(cudaFree(sb));
  CK(cudaFree(rb));
  MPI_Finalize();
  return 0;
}

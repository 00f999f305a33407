/* GPU test of the one-shot peer broadcast and reduce kernels (kernels/rooted_oneshot.h) on one
 * GPU, without MPI or NCCL: n "ranks" are n allocations laid out as collbench lays out a rank's
 * peer memory ([send | recv | signal pad]) and n launches on n streams of this process, which run
 * side by side and meet at the kernels' barriers through each other's pads, as ranks do through
 * IPC mappings. Exit 1 on any failure, 77 when there is no GPU.
 *
 * Per case (n = 2, 3, 4, 8; root 0 and n-1; float, half, bfloat16 and fp8e4m3; counts that are
 * not a whole vector and several grid blocks; out of place and in place), 5 calls in a row on the
 * same allocations with fresh inputs each (the per-block epochs advance, the double barrier keeps
 * the root's input alive until every reader is done):
 *   broadcast  every rank's output equals the root's input, bit for bit;
 *   reduce     the root's output equals the host's reduction in rank order with fp32 accumulation
 *              rounded once to the type (the kernel's order, so bit for bit), for sum and max;
 *              every other rank's output (out of place) still holds its poison: only the root
 *              writes. Inputs are multiples of 1/4 in [-2, 2], exact in every type. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_limits.h"
#include "dtype.cuh"
#include "rooted_oneshot.h"
#include "signal_pad.h"

static int failures = 0, cases = 0;

#define CK(call)                                                                                                \
  do {                                                                                                          \
    cudaError_t e_ = (call);                                                                                    \
    if (e_ != cudaSuccess) {                                                                                    \
      fprintf(stderr, "rooted_peer_test: %s: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(1);                                                                                                  \
    }                                                                                                           \
  } while (0)

static float input_value(int rank, size_t i, int call) {
  return (float)((int)((rank * 7 + i * 13 + (size_t)call * 3) % 17) - 8) * 0.25f;
}

template <typename T>
static void run_case(int n, int root, int dtype, int op, size_t count, int inplace, int reduce) {
  const size_t es = sizeof(T), S = (count * es + 255) / 256 * 256;
  const size_t recv_off = inplace ? 0 : S, pad_off = inplace ? S : 2 * S, total = pad_off + CB_SIGNAL_PAD_BYTES;
  void *base[CB_MAX_RANKS] = {0};
  uint32_t *epoch[CB_MAX_RANKS] = {0};
  cudaStream_t st[CB_MAX_RANKS];
  for (int r = 0; r < n; r++) {
    CK(cudaMalloc(&base[r], total));
    CK(cudaMemset(base[r], 0, total));
    CK(cudaMalloc((void **)&epoch[r], CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t)));
    CK(cudaMemset(epoch[r], 0, CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t)));
    CK(cudaStreamCreateWithFlags(&st[r], cudaStreamNonBlocking));
  }
  cb_grid_limits_t g = {16, 132, 2048};
  T *host = (T *)malloc(count * es * (size_t)n), *got = (T *)malloc(count * es);
  const T poison = cb_scalar<T>::from_float(-1000.0f);
  int bad = 0;
  cases++;
  for (int call = 0; call < 5 && !bad; call++) {
    for (int r = 0; r < n; r++) {
      T *in = host + (size_t)r * count;
      for (size_t i = 0; i < count; i++) in[i] = cb_scalar<T>::from_float(input_value(r, i, call));
      CK(cudaMemcpy(base[r], in, count * es, cudaMemcpyHostToDevice));
      if (!inplace) {
        for (size_t i = 0; i < count; i++) got[i] = poison;
        CK(cudaMemcpy((char *)base[r] + recv_off, got, count * es, cudaMemcpyHostToDevice));
      }
    }
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < n; r++) {
      cb_rooted_launch_t a;
      memset(&a, 0, sizeof a);
      for (int q = 0; q < n; q++) a.base[q] = base[q];
      a.in = base[r];
      a.out = (char *)base[r] + recv_off;
      a.in_off = 0;
      a.pad_off = pad_off;
      a.epoch = epoch[r];
      a.count = count;
      a.rank = r;
      a.nranks = n;
      a.root = root;
      a.dtype = dtype;
      a.op = op;
      a.timeout_ns = 10ull * 1000 * 1000 * 1000;
      cb_rooted_peer_grid(count, dtype, &g, &a.blocks, &a.threads);
      if (reduce) cb_reduce_peer_launch(&a, st[r]);
      else cb_broadcast_peer_launch(&a, st[r]);
    }
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < n && !bad; r++) {
      CK(cudaMemcpy(got, (char *)base[r] + recv_off, count * es, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < count && !bad; i++) {
        T want;
        if (!reduce) want = host[(size_t)root * count + i];
        else if (r != root) {
          if (inplace) continue; /* a non-root rank's in-place buffer is its input, untouched */
          want = poison;
        } else {
          float acc = cb_scalar<T>::to_float(host[i]);
          for (int q = 1; q < n; q++) {
            float v = cb_scalar<T>::to_float(host[(size_t)q * count + i]);
            acc = op == CB_MAX ? (v > acc ? v : acc) : acc + v;
          }
          want = cb_scalar<T>::from_float(acc);
        }
        if (memcmp(&got[i], &want, es) != 0) {
          fprintf(stderr,
                  "FAIL %s n=%d root=%d dtype=%d op=%d count=%zu %s call %d: rank %d element %zu = %g, want %g\n",
                  reduce ? "reduce" : "broadcast", n, root, dtype, op, count, inplace ? "in-place" : "out-of-place",
                  call, r, i, cb_scalar<T>::to_float(got[i]), cb_scalar<T>::to_float(want));
          bad = 1;
        }
      }
    }
  }
  failures += bad;
  free(host);
  free(got);
  for (int r = 0; r < n; r++) {
    CK(cudaFree(base[r]));
    CK(cudaFree(epoch[r]));
    CK(cudaStreamDestroy(st[r]));
  }
}

template <typename T>
static void run_dtype(int dtype) {
  static const int ns[] = {2, 3, 4, 8};
  static const size_t counts[] = {1, 3, 17, 1030, 65541};
  for (int ni = 0; ni < 4; ni++)
    for (int root = 0; root < ns[ni]; root += ns[ni] - 1)
      for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (int inplace = 0; inplace < 2; inplace++) {
          run_case<T>(ns[ni], root, dtype, CB_SUM, counts[c], inplace, 0);
          run_case<T>(ns[ni], root, dtype, CB_SUM, counts[c], inplace, 1);
          run_case<T>(ns[ni], root, dtype, CB_MAX, counts[c], inplace, 1);
        }
  /* a size that fills every block of the grid (16 blocks of 512 threads, several vectors each) */
  run_case<T>(4, 3, dtype, CB_SUM, (1u << 20) + 5, 0, 0);
  run_case<T>(4, 3, dtype, CB_SUM, (1u << 20) + 5, 1, 1);
}

int main(void) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
    printf("rooted_peer_test: no GPU: skipped\n");
    return 77;
  }
  run_dtype<float>(CB_FLOAT);
  run_dtype<__half>(CB_HALF);
  run_dtype<__nv_bfloat16>(CB_BF16);
  run_dtype<cb_e4m3_t>(CB_FP8E4M3);
  if (failures) {
    printf("rooted_peer_test: %d of %d cases failed\n", failures, cases);
    return 1;
  }
  printf("rooted_peer_test: all %d cases passed\n", cases);
  return 0;
}

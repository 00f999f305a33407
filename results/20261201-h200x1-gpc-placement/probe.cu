/* Where the block scheduler puts a small grid, by GPC (issue 14: at --sms 32 the MoE dispatch's
 * blocks 0-7 land on SMs 124-131 and end their NVLink pushes 8-11 us after the others,
 * results/20261201-h200x2-sm-placement). One GPU, no peer:
 *   1. the GPC of every SM: clusters never span a GPC, so SMs that share a cluster in some
 *      launch are in one GPC (union-find over launches of 2- to 16-block clusters, grids of
 *      random size, one block per SM);
 *   2. for a grid of G one-block-per-SM blocks (the dispatch's shape: 1024 threads, the
 *      whole SM) launched plain and as clusters of 2, 4 and 8: the SM and GPC of each block,
 *      and the blocks per GPC, over several launches.
 * Build and run: nvcc -O2 -arch=sm_90 -o probe probe.cu && ./probe [G ...] */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

/* Each block: its SM, then a short spin so the whole grid is resident at once. */
__global__ void __launch_bounds__(1024, 1) where(int *sm) {
  if (threadIdx.x == 0) {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    sm[blockIdx.x] = (int)s;
  }
  const long long t0 = clock64();
  while (clock64() - t0 < 20000) {
  }
}

static int find(int *p, int x) { return p[x] == x ? x : (p[x] = find(p, p[x])); }

/* grid blocks of 1024 threads (smem bytes of dynamic shared memory each), in clusters of
 * `cluster` blocks when cluster > 1; waits for them. */
static cudaError_t try_launch(int grid, int cluster, size_t smem, int *d_sm) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)grid);
  cfg.blockDim = dim3(1024);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = (unsigned)cluster;
  at[0].val.clusterDim.y = at[0].val.clusterDim.z = 1;
  cfg.attrs = at;
  cfg.numAttrs = cluster > 1 ? 1 : 0;
  cudaError_t e = cudaLaunchKernelEx(&cfg, where, d_sm);
  return e != cudaSuccess ? e : cudaDeviceSynchronize();
}

static void launch(int grid, int cluster, size_t smem, int *d_sm) { CK(try_launch(grid, cluster, smem, d_sm)); }

int main(int argc, char **argv) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int nsm = prop.multiProcessorCount;
  /* one block per SM: more dynamic shared memory than half an SM holds */
  const size_t smem = prop.sharedMemPerMultiprocessor / 2 + 1024;
  CK(cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int *d_sm, *sm = (int *)malloc(sizeof(int) * nsm), *par = (int *)malloc(sizeof(int) * 1024);
  CK(cudaMalloc(&d_sm, sizeof(int) * nsm));
  printf("%s: %d SMs\n", prop.name, nsm);

  /* 1. GPC map: clusters of 2, 4, 8 and (where the GPU allows) 16 blocks, grids of varying
   * size, so that the clusters' SM sets overlap across launches */
  for (int i = 0; i < 1024; i++) par[i] = i;
  int cmax = 8;
  if (cudaFuncSetAttribute(where, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess) cmax = 16;
  cudaGetLastError();
  srand(12345);
  int launches = 0;
  for (int rep = 0; rep < 800; rep++) {
    const int C = 2 << (rep % 4);
    if (C > cmax) continue;
    const int k = 1 + rand() % (nsm / C);
    if (try_launch(C * k, C, smem, d_sm) != cudaSuccess) {
      cudaGetLastError(); /* e.g. more clusters of 16 than fit at once: skip */
      continue;
    }
    launches++;
    CK(cudaMemcpy(sm, d_sm, sizeof(int) * C * k, cudaMemcpyDeviceToHost));
    for (int c = 0; c < k; c++)
      for (int b = 1; b < C; b++) par[find(par, sm[C * c + b])] = find(par, sm[C * c]);
  }
  printf("largest cluster tried: %d; %d launches\n", cmax, launches);
  int gpc_of[1024], ngpc = 0, root_gpc[1024];
  for (int i = 0; i < 1024; i++) root_gpc[i] = -1;
  for (int s = 0; s < nsm; s++) {
    const int r = find(par, s);
    if (root_gpc[r] < 0) root_gpc[r] = ngpc++;
    gpc_of[s] = root_gpc[r];
  }
  printf("GPCs (SMs that shared a cluster in some launch): %d\n", ngpc);
  for (int g = 0; g < ngpc; g++) {
    int cnt = 0;
    printf("  gpc %d:", g);
    for (int s = 0; s < nsm; s++)
      if (gpc_of[s] == g) {
        printf(" %d", s);
        cnt++;
      }
    printf("  (%d SMs)\n", cnt);
  }

  /* 2. placement of small grids */
  int grids[16], ng = 0;
  for (int i = 1; i < argc && ng < 16; i++) grids[ng++] = atoi(argv[i]);
  if (!ng) grids[ng++] = 32;
  const int clusters[4] = {1, 2, 4, 8};
  for (int gi = 0; gi < ng; gi++) {
    const int G = grids[gi];
    if (G < 1 || G > nsm) {
      fprintf(stderr, "grid %d: want 1..%d\n", G, nsm);
      return 2;
    }
    for (int ci = 0; ci < 4; ci++) {
      const int C = clusters[ci];
      if (G % C) continue;
      printf("grid %d, cluster %d:\n", G, C);
      for (int rep = 0; rep < 5; rep++) {
        launch(G, C, smem, d_sm);
        CK(cudaMemcpy(sm, d_sm, sizeof(int) * G, cudaMemcpyDeviceToHost));
        int per[1024] = {0}, most = 0;
        for (int b = 0; b < G; b++) per[gpc_of[sm[b]]]++;
        for (int g = 0; g < ngpc; g++) most = per[g] > most ? per[g] : most;
        printf("  launch %d: blocks per gpc", rep);
        for (int g = 0; g < ngpc; g++) printf(" %d", per[g]);
        printf("  (most %d)  blocks 0-7 on SMs", most);
        for (int b = 0; b < 8 && b < G; b++) printf(" %d", sm[b]);
        printf("\n");
      }
    }
  }
  CK(cudaFree(d_sm));
  return 0;
}

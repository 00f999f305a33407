/* Launching a grid of one-block-per-SM blocks spread evenly over the GPCs. A plain launch of a
 * small grid does not spread: on an H200 (132 SMs) 32 blocks go 8 to SMs 124-131 and 3 to each
 * of the 8 GPCs, and blocks 0-7 of the MoE dispatch push end their NVLink stores 8-11 us after
 * the others (each block's %smid in a CB_MOE_TRACE build). Launched as clusters of 4 blocks (a cluster
 * never spans two GPCs), the same grid goes 4 to each of the 8 GPCs. On 2 x H200 that made
 * peer's one-kernel combine 2.7 % faster at 32 SMs; the dispatch push, spread, lost its late
 * blocks but was 0.7 % slower (its 32 blocks are bound by their NVLink stores), so only the
 * combine uses it (docs/decisions/moe.md).
 *
 * cb_launch_spread uses clusters of 4, where the caller allows them, when the grid divides by 4
 * and all its clusters can be resident at once on the whole, idle GPU
 * (cudaOccupancyMaxActiveClusters: a kernel whose blocks wait on each other must never have a
 * cluster waiting for SMs; SMs held by other work it cannot see, hence the caller's say), else a
 * plain launch; with pdl also programmatic stream serialization (pdl.cuh). The answer is cached
 * per kernel, grid and block size: one host thread launches and each process has one GPU
 * (launcher/world_init.c), so a small static table without a lock serves; past its 16 entries the
 * query is simply made again. */
#ifndef CB_SPREAD_CUH
#define CB_SPREAD_CUH

#include <cuda_runtime.h>

constexpr int kSpreadCluster = 4;

/* The cluster size for kernel at grid (1: a plain launch), cached per (kernel, grid, block). */
inline int cb_spread_cluster(const void *kernel, int grid, int block) {
  struct known {
    const void *kernel;
    int grid, block, cluster;
  };
  static known cache[16];
  static int ncache = 0;
  for (int i = 0; i < ncache; i++)
    if (cache[i].kernel == kernel && cache[i].grid == grid && cache[i].block == block) return cache[i].cluster;
  int cluster = 1;
  if (grid % kSpreadCluster == 0) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)grid);
    cfg.blockDim = dim3((unsigned)block);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = kSpreadCluster;
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int fit = 0;
    if (cudaOccupancyMaxActiveClusters(&fit, kernel, &cfg) != cudaSuccess)
      (void)cudaGetLastError(); /* no clusters here (the query's error cleared; an earlier pending
                                 * error cannot hide: every launch is checked right after it,
                                 * CB_CUDA_LAUNCH): a plain launch */
    else if (fit * kSpreadCluster >= grid) cluster = kSpreadCluster;
  }
  if (ncache < 16) cache[ncache++] = known{kernel, grid, block, cluster};
  return cluster;
}

template <class... Params, class... Args>
inline cudaError_t cb_launch_spread(void (*kernel)(Params...), int grid, int block, cudaStream_t s, bool pdl,
                                    bool allow_clusters, Args &&...args) {
  const int cluster = allow_clusters ? cb_spread_cluster((const void *)kernel, grid, block) : 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)grid);
  cfg.blockDim = dim3((unsigned)block);
  cfg.stream = s;
  cudaLaunchAttribute attr[2];
  unsigned na = 0;
  if (cluster > 1) {
    attr[na].id = cudaLaunchAttributeClusterDimension;
    attr[na].val.clusterDim.x = (unsigned)cluster;
    attr[na].val.clusterDim.y = attr[na].val.clusterDim.z = 1;
    na++;
  }
  if (pdl) {
    attr[na].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[na].val.programmaticStreamSerializationAllowed = 1;
    na++;
  }
  cfg.attrs = attr;
  cfg.numAttrs = na;
  return cudaLaunchKernelEx(&cfg, kernel, static_cast<Args &&>(args)...);
}

/* A block's place in a kernel that splits its grid into roles by block index (first k blocks do
 * one job, the rest another): launched in clusters of `cluster` blocks (the blocks of one cluster
 * share a GPC), role index i goes to block (i % clusters) * cluster + i / clusters, so the first
 * k role indices are spread over every cluster (GPC). A bijection on [0, grid); the identity for
 * a plain launch (cluster 1) or a grid that does not divide into clusters, so a plain launch
 * keeps the low block indices, which are scheduled first, on the first roles. */
__host__ __device__ __forceinline__ int cb_spread_role_of(int block, int grid, int cluster) {
  if (cluster <= 1 || grid % cluster) return block;
  const int clusters = grid / cluster;
  return (block % cluster) * clusters + block / cluster;
}

#ifdef __CUDACC__
/* cb_spread_role_of for the calling block, with the cluster size this launch actually has. */
__device__ __forceinline__ int cb_spread_role() {
  unsigned n;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return cb_spread_role_of((int)blockIdx.x, (int)gridDim.x, (int)n);
}
#endif

#endif

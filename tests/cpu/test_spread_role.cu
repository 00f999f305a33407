/* CPU test of kernels/spread.cuh's role mapping (cb_spread_role_of): a bijection on [0, grid)
 * for every grid and cluster size, the identity for a plain launch (cluster 1) and for a grid
 * that does not divide into clusters, and in clusters of 4 the first roles one per cluster
 * (blocks 0, 4, 8, ...), so a kernel's first k roles spread over every GPC. Runs without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "spread.cuh"

int main(void) {
  static int seen[1024];
  for (int cluster = 1; cluster <= 8; cluster *= 2)
    for (int grid = 1; grid <= 256; grid++) {
      memset(seen, 0, sizeof seen);
      for (int b = 0; b < grid; b++) {
        int r = cb_spread_role_of(b, grid, cluster);
        CHECK(r >= 0 && r < grid, "grid %d cluster %d: block %d -> role %d out of range", grid, cluster, b, r);
        if (r >= 0 && r < grid) seen[r]++;
        if (cluster == 1 || grid % cluster)
          CHECK(r == b, "grid %d cluster %d: block %d -> %d, not the identity", grid, cluster, b, r);
      }
      for (int r = 0; r < grid; r++)
        CHECK(seen[r] == 1, "grid %d cluster %d: role %d taken %d times", grid, cluster, r, seen[r]);
      if (cluster > 1 && grid % cluster == 0)
        for (int c = 0; c < grid / cluster; c++) /* role c on the first block of cluster c */
          CHECK(cb_spread_role_of(c * cluster, grid, cluster) == c,
                "grid %d cluster %d: block %d -> %d, expected role %d", grid, cluster, c * cluster,
                cb_spread_role_of(c * cluster, grid, cluster), c);
    }
  /* the H200 case: 32 blocks in clusters of 4, 16 push roles -> 2 per cluster (GPC) */
  int per_cluster[8] = {0};
  for (int b = 0; b < 32; b++)
    if (cb_spread_role_of(b, 32, 4) < 16) per_cluster[b / 4]++;
  for (int c = 0; c < 8; c++)
    CHECK(per_cluster[c] == 2, "32 blocks: cluster %d holds %d of the 16 first roles", c, per_cluster[c]);
  return cb_test_finish("test_spread_role");
}

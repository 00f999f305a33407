/* TMA tensor maps of the Hopper attention kernels (sm90_tma.h): cuTensorMapEncodeTiled, found
 * once through the runtime's driver entry points (no link to libcuda). */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>

#include "sm90_tma.h"

typedef CUresult (*cb_encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                       const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                       CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                       CUtensorMapFloatOOBfill);

/* cuTensorMapEncodeTiled from the driver, found once through the runtime (no link to libcuda). */
static cb_encode_tiled_fn cb_encode_fn(char *why, size_t n) {
  static cb_encode_tiled_fn fn; /* a cache of a driver entry point, written once */
  if (fn) return fn;
  void *f = NULL;
  cudaDriverEntryPointQueryResult q;
  const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !f) {
    snprintf(why, n, "attention (wgmma): cuTensorMapEncodeTiled not found in the driver (%s)", cudaGetErrorString(e));
    return NULL;
  }
  fn = (cb_encode_tiled_fn)f;
  return fn;
}

int cb_sm90_map(CUtensorMap *m, const void *base, int bf16, int d, int heads, int len, int batch, int rows, char *why,
                size_t n) {
  cb_encode_tiled_fn enc = cb_encode_fn(why, n);
  if (!enc) return -1;
  const cuuint64_t dims[4] = {(cuuint64_t)d, (cuuint64_t)heads, (cuuint64_t)len, (cuuint64_t)batch};
  const cuuint64_t strides[3] = {(cuuint64_t)d * 2, (cuuint64_t)heads * d * 2, (cuuint64_t)len * heads * d * 2};
  const cuuint32_t box[4] = {64, 1, (cuuint32_t)rows, 1};
  const cuuint32_t estr[4] = {1, 1, 1, 1};
  const CUresult r =
      enc(m, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, const_cast<void *>(base),
          dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    snprintf(why, n, "attention (wgmma): cuTensorMapEncodeTiled failed (error %d) for a %d x %d x %d x %d tensor",
             (int)r, batch, len, heads, d);
    return -1;
  }
  return 0;
}

int cb_sm90_map_f32(CUtensorMap *m, void *base, int d, int heads, int len, int batch, int rows, char *why, size_t n) {
  cb_encode_tiled_fn enc = cb_encode_fn(why, n);
  if (!enc) return -1;
  const cuuint64_t dims[4] = {(cuuint64_t)d, (cuuint64_t)heads, (cuuint64_t)len, (cuuint64_t)batch};
  const cuuint64_t strides[3] = {(cuuint64_t)d * 4, (cuuint64_t)heads * d * 4, (cuuint64_t)len * heads * d * 4};
  const cuuint32_t box[4] = {32, 1, (cuuint32_t)rows, 1};
  const cuuint32_t estr[4] = {1, 1, 1, 1};
  const CUresult r =
      enc(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
          CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    snprintf(why, n, "attention (wgmma): cuTensorMapEncodeTiled failed (error %d) for a %d x %d x %d x %d fp32 tensor",
             (int)r, batch, len, heads, d);
    return -1;
  }
  return 0;
}

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

/* The one encoder of both maps: a (d, heads, len, batch) tensor of elem-byte elements, boxes of
 * (cols, 1, rows, 1), 128-byte swizzled; kind names the element type in the message ("" or " fp32"). */
static int encode(CUtensorMap *m, CUtensorMapDataType type, int elem, int cols, void *base, int d, int heads, int len,
                  int batch, int rows, const char *kind, char *why, size_t n) {
  cb_encode_tiled_fn enc = cb_encode_fn(why, n);
  if (!enc) return -1;
  const cuuint64_t e = (cuuint64_t)elem;
  const cuuint64_t dims[4] = {(cuuint64_t)d, (cuuint64_t)heads, (cuuint64_t)len, (cuuint64_t)batch};
  const cuuint64_t strides[3] = {(cuuint64_t)d * e, (cuuint64_t)heads * d * e, (cuuint64_t)len * heads * d * e};
  const cuuint32_t box[4] = {(cuuint32_t)cols, 1, (cuuint32_t)rows, 1};
  const cuuint32_t estr[4] = {1, 1, 1, 1};
  const CUresult r =
      enc(m, type, 4, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    snprintf(why, n, "attention (wgmma): cuTensorMapEncodeTiled failed (error %d) for a %d x %d x %d x %d%s tensor",
             (int)r, batch, len, heads, d, kind);
    return -1;
  }
  return 0;
}

int cb_sm90_map(CUtensorMap *m, const void *base, int bf16, int d, int heads, int len, int batch, int rows, char *why,
                size_t n) {
  return encode(m, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, 64,
                const_cast<void *>(base), d, heads, len, batch, rows, "", why, n);
}

int cb_sm90_map_f32(CUtensorMap *m, void *base, int d, int heads, int len, int batch, int rows, char *why, size_t n) {
  return encode(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, base, d, heads, len, batch, rows, " fp32", why, n);
}

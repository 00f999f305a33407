/* CB_HD marks a small function that host C, host C++ and CUDA device code all call (dtype and
 * op traits, the check pattern, the shard split): one definition serves every layer. Under nvcc
 * it is __host__ __device__ and always inlined; in plain C it is static inline. */
#ifndef CB_HOSTDEV_H
#define CB_HOSTDEV_H

#ifdef __CUDACC__
#define CB_HD __host__ __device__ __forceinline__
#else
#define CB_HD static inline
#endif

#endif

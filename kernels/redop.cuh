/* The reduction operators' arithmetic in one type A (float, double or an integer type; the
 * accumulator types of dtype.cuh cb_acc_t), on host and device: the custom kernels
 * (reduce.cuh) and the check's expected values (check.cu) share it, so the two cannot drift.
 *
 * Integers follow C's unsigned arithmetic: sum and prod wrap modulo 2^bits (computed on the
 * unsigned type, so signed overflow is never undefined), as NCCL's kernels do. avg divides the
 * (wrapped) sum once by the rank count, truncating toward zero: NCCL's ncclAvg on integers
 * (FuncSumPostDiv) computes exactly that. max and min compare as the type. Floating types:
 * fmax/fmin, a + b, a * b, and sum / n for avg. */
#ifndef CB_REDOP_CUH
#define CB_REDOP_CUH

#include <math.h>

#include <type_traits>

#include "dtype.h"
#include "hostdev.h"

template <typename A>
CB_HD A cb_combine(int op, A a, A b) {
  if constexpr (std::is_integral<A>::value) {
    using U = typename std::make_unsigned<A>::type;
    switch (op) {
    case CB_MAX: return a > b ? a : b;
    case CB_MIN: return a < b ? a : b;
    case CB_PROD: return (A)(U)((U)a * (U)b);
    default: return (A)(U)((U)a + (U)b);
    }
  } else {
    switch (op) {
    case CB_MAX: return fmax(a, b);
    case CB_MIN: return fmin(a, b);
    case CB_PROD: return a * b;
    default: return a + b;
    }
  }
}

/* The last step of op over n sources: avg divides, every other op leaves acc as it is. */
template <typename A>
CB_HD A cb_finish_op(int op, A acc, int n) {
  if (!cb_redop_is_avg(op)) return acc;
  if constexpr (std::is_integral<A>::value && std::is_signed<A>::value) return (A)((long long)acc / n);
  else if constexpr (std::is_integral<A>::value) return (A)((unsigned long long)acc / (unsigned)n);
  else return acc / (A)n;
}

#endif

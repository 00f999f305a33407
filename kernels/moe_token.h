/* The MoE token data formula, once for the device (the token fill and the checks,
 * moe_rows.cuh) and the host reference (collectives/moe_router.c): element h of token t of
 * rank `rank` at check iteration `iter` is a multiple of 1/64 in [-1, 1] (exact in bf16), from a
 * seeded hash. */
#ifndef CB_MOE_TOKEN_H
#define CB_MOE_TOKEN_H

#include <stdint.h>

#include "hostdev.h"
#include "mix64.h"

CB_HD float cb_moe_token_formula(uint64_t seed, int rank, int iter, int t, int h) {
  uint64_t x =
      cb_mix64(seed ^ cb_mix64(((uint64_t)(uint32_t)rank << 40) ^ ((uint64_t)(uint32_t)iter << 20) ^ 0xabcdefull) ^
               cb_mix64(((uint64_t)(uint32_t)t << 24) ^ (uint64_t)(uint32_t)h));
  return (float)((int)(x % 129) - 64) / 64.0f;
}

#endif

/* MoE configuration: model presets, the routing law and the checks that reject configurations
 * collbench cannot run (host-only; used by the CLI and by the moe algorithms). */
#ifndef CB_MOE_CONFIG_H
#define CB_MOE_CONFIG_H

#include <stddef.h>

#include "dtype.h"

typedef enum cb_routing_kind {
  CB_ROUTE_UNIFORM = 0, /* every expert equally likely */
  CB_ROUTE_ZIPF,        /* expert e (in a seeded random order) has weight 1/(rank+1)^s */
  CB_ROUTE_HOT,         /* k hot experts each get f times the mean load; the rest share the rest */
} cb_routing_kind_t;

typedef struct cb_routing {
  cb_routing_kind_t kind;
  double zipf_s; /* zipf:S, S > 0 */
  int hot_k;     /* hot:K:F, 1 <= K < experts */
  double hot_f;  /* F >= 1 and K*F <= experts (the hot share cannot exceed all traffic) */
} cb_routing_t;

typedef struct cb_moe_config {
  char model[32]; /* preset name, or "custom" */
  int hidden;     /* channels per token */
  int topk;       /* experts per token */
  int experts;    /* total experts, split evenly across ranks */
  cb_routing_t routing;
  int uneven;            /* per-rank token counts differ, the last rank has none (cb_moe_tokens_for_rank) */
  int validate;          /* print a PASS/FAIL verdict per configuration */
  int overlap;           /* also time the round trip beside a compute kernel on the free SMs (launcher/overlap.c) */
  double drop;           /* fraction of (token, k) selections set to -1 (dropped), 0 <= drop < 1 */
  char routing_text[64]; /* cb_routing_format of routing, for the rows (set once the command line is read) */
} cb_moe_config_t;

/* Fills cfg from a preset: deepseek-v3 (7168, 256 experts, top-8), mixtral-8x7b (4096, 8,
 * top-2), qwen3-30b-a3b (2048, 128, top-8). Returns -1 for an unknown name. */
int cb_moe_preset(const char *name, cb_moe_config_t *cfg);
const char *cb_moe_presets_accepted(void);

/* "uniform", "zipf:S", "hot:K:F". Returns 0, or -1 with why. */
int cb_routing_parse(const char *s, cb_routing_t *out, char *why, size_t n);
/* Writes the canonical text of r ("zipf:1.2"). */
void cb_routing_format(const cb_routing_t *r, char *buf, size_t n);

/* The unnormalized weight of the expert at popularity rank i (0 = most popular) under the law:
 * 1 / (i+1)^S for zipf:S, 1 otherwise (hot:K:F is set after normalizing, cb_moe_expert_law).
 * A large S makes it 0 (overflow) for all but the first few experts. */
double cb_routing_weight(const cb_routing_t *r, int i);

/* Rejects what cannot run: topk > experts, experts not divisible by nranks, hidden not a
 * multiple of 128 with fp8 (one fp32 scale per 128 channels), hidden not a multiple of 8
 * (16-byte vectors of bf16), hot:K:F that does not fit the expert count, dtype other than
 * bfloat16 / fp8e4m3, zipf:S so steep that fewer than topk experts keep a non-zero
 * probability. Returns 0, or -1 with why. */
int cb_moe_config_check(const cb_moe_config_t *cfg, int nranks, cb_dtype_t dtype, char *why, size_t n);

#endif

/* The forms a ringattn group runs at one sweep point: causal or not (--causal), the sequence
 * layout (--layout, attn_layout.h), the Ulysses degree U of the rows that take one
 * (--ulysses: `ulysses` and `nccl_ulysses` run the all-to-all inside groups of U ranks and the
 * ring across the P/U groups) and the batch size (--batch LIST: with the --seq points, the
 * batch x sequence sweep). They are the family's variants (family.h): the bench engine runs
 * a group per variant the configuration turns on (attn_family.c's variant_on), and hands it to
 * the plan and the rows (cb_params_t.variant, read through attn_family.h's accessors);
 * everything below decodes it. Host-only and CUDA-free.
 *
 * A variant is one index: causal + 2 * (lslot + 3 * (uslot + 65 * bslot)), where lslot is 0 for
 * the causal default layout (zigzag when causal, contiguous otherwise), then 1 and 2 for the
 * other two in enum order (attn_layout.h: contiguous, zigzag, stripe),
 * uslot the Ulysses degree U (1..CB_ATTN_MAX_ULYSSES), or 0 for "not asked for" (the Ulysses
 * rows then run U = P, pure Ulysses), and bslot the batch's place in the --batch list. So
 * variants 0 and 1 are the two forms of a run without --layout, --ulysses and a --batch list
 * (non-causal contiguous, causal zigzag), and a point runs every form of one batch before the
 * next batch. Rows without a Ulysses degree (single, the
 * rings, the all-gather) run in the first Ulysses slot of a run only (cb_attn_variant_first), so
 * `--ulysses all` adds groups of the Ulysses rows, not copies of the others. */
#ifndef CB_ATTN_VARIANT_H
#define CB_ATTN_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "attn_config.h"
#include "attn_layout.h"

#define CB_ATTN_MAX_ULYSSES 64 /* the largest Ulysses degree (= the most ranks of one ring) */
/* the forms of one batch, and every variant */
#define CB_ATTN_NFORMS (2 * CB_ATTN_NLAYOUTS * (CB_ATTN_MAX_ULYSSES + 1))
#define CB_ATTN_NVARIANTS (CB_ATTN_NFORMS * CB_ATTN_MAX_BATCHES)

typedef struct cb_attn_variant {
  int causal;
  int layout;  /* enum cb_attn_layout */
  int ulysses; /* the degree asked for; 0: none (Ulysses rows run U = P) */
  int bslot;   /* the batch: cb_attn_config_t.batches[bslot] */
} cb_attn_variant_t;

cb_attn_variant_t cb_attn_variant(int v);
int cb_attn_variant_index(cb_attn_variant_t f);

/* --ulysses: "all", or a comma list of degrees 1..CB_ATTN_MAX_ULYSSES. Sets c->ulysses and
 * c->ulysses_all; returns 0, or -1 on anything else (c unchanged). */
int cb_attn_parse_ulysses(const char *s, cb_attn_config_t *c);

/* 1 when the configuration runs variant v on nranks ranks: its causal form chosen, its layout
 * chosen (or, without --layout, the causal default), its Ulysses degree asked for (or, with
 * "all", dividing nranks; without --ulysses, the slot 0), its batch slot in the --batch list. */
int cb_attn_variant_on(const cb_attn_config_t *c, int v, int nranks);

/* 1 when v's Ulysses slot is the first the configuration runs on nranks ranks: rows without a
 * Ulysses degree run in that group only. */
int cb_attn_variant_first(const cb_attn_config_t *c, int v, int nranks);

/* The Ulysses degree rows of variant v run with on nranks ranks: the degree asked for, else
 * nranks. */
int cb_attn_ulysses_degree(int v, int nranks);

/* The Ulysses degrees asked for on nranks ranks (before any row): each must divide nranks.
 * Returns 0, or -1 with why. */
int cb_attn_ulysses_check(const cb_attn_config_t *c, int nranks, char *why, size_t n);

/* Everything a group of variant v needs before any GPU work: the sequence splits in its layout
 * over nranks, and its Ulysses degree divides nranks. Returns 0, or -1 with why. */
int cb_attn_variant_check(int v, uint64_t seq, int nranks, char *why, size_t n);

/* What a group's description adds for variant v (causal is said apart): its layout when it is
 * not the causal default, and the Ulysses degree when one was asked for: "" (variants 0 and 1),
 * "contiguous", "zigzag U=4", "U=2". (The batch is said apart too.) */
void cb_attn_variant_text(int v, char *buf, size_t n);

/* The NVTX mode suffix of variant v under configuration c ("-causal", "-noncausal-zigzag-U4",
 * "-causal-b8" in a run of several batch sizes; variants 0 and 1 of a run of one batch keep the
 * names of the two causal forms). */
void cb_attn_nvtx_variant(const cb_attn_config_t *c, int v, char *buf, size_t n);

#endif

/* The variants of a ringattn group (attn_variant.h). */
#include "attn_variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The layout slot (attn_variant.h): 0 the causal default, then the others in enum order. */
static int layout_of_slot(int causal, int slot) {
  const int dflt = cb_attn_default_layout(causal);
  if (slot == 0) return dflt;
  for (int l = 0; l < CB_ATTN_NLAYOUTS; l++)
    if (l != dflt && --slot == 0) return l;
  return dflt; /* (no such slot) */
}

static int slot_of_layout(int causal, int layout) {
  const int dflt = cb_attn_default_layout(causal);
  if (layout == dflt) return 0;
  int slot = 1;
  for (int l = 0; l < layout; l++)
    if (l != dflt) slot++;
  return slot;
}

cb_attn_variant_t cb_attn_variant(int v) {
  cb_attn_variant_t f;
  f.causal = v % 2;
  f.layout = layout_of_slot(f.causal, (v / 2) % CB_ATTN_NLAYOUTS);
  f.ulysses = (v / (2 * CB_ATTN_NLAYOUTS)) % (CB_ATTN_MAX_ULYSSES + 1);
  f.bslot = v / CB_ATTN_NFORMS;
  return f;
}

int cb_attn_variant_index(cb_attn_variant_t f) {
  return f.causal + 2 * (slot_of_layout(f.causal, f.layout) +
                         CB_ATTN_NLAYOUTS * (f.ulysses + (CB_ATTN_MAX_ULYSSES + 1) * f.bslot));
}

int cb_attn_parse_ulysses(const char *s, cb_attn_config_t *c) {
  if (strcmp(s, "all") == 0) {
    c->ulysses = 0;
    c->ulysses_all = 1;
    return 0;
  }
  uint64_t bits = 0;
  const char *p = s;
  for (;;) {
    if (*p < '0' || *p > '9') return -1; /* no sign, space or empty item */
    char *end = NULL;
    long u = strtol(p, &end, 10);
    if (end == p || u < 1 || u > CB_ATTN_MAX_ULYSSES || (*end != ',' && *end != 0)) return -1;
    bits |= 1ull << (u - 1);
    if (*end == 0) break;
    p = end + 1;
  }
  c->ulysses = bits;
  c->ulysses_all = 0;
  return 0;
}

/* The Ulysses slot u (0..CB_ATTN_MAX_ULYSSES) is run by c on nranks ranks. */
static int slot_on(const cb_attn_config_t *c, int u, int nranks) {
  if (c->ulysses_all) return u >= 1 && nranks % u == 0;
  if (!c->ulysses) return u == 0;
  return u >= 1 && (c->ulysses >> (u - 1) & 1);
}

int cb_attn_variant_on(const cb_attn_config_t *c, int v, int nranks) {
  if (v < 0 || v >= CB_ATTN_NVARIANTS) return 0;
  const cb_attn_variant_t f = cb_attn_variant(v);
  if (f.bslot >= c->nbatches) return 0;
  if (!(c->causal_modes & (f.causal ? CB_ATTN_CAUSAL : CB_ATTN_NONCAUSAL))) return 0;
  if (c->layouts ? !(c->layouts & CB_ATTN_LAYOUT_BIT(f.layout)) : f.layout != cb_attn_default_layout(f.causal))
    return 0;
  return slot_on(c, f.ulysses, nranks);
}

int cb_attn_variant_first(const cb_attn_config_t *c, int v, int nranks) {
  const int u = cb_attn_variant(v).ulysses;
  for (int k = 0; k < u; k++)
    if (slot_on(c, k, nranks)) return 0;
  return 1;
}

int cb_attn_ulysses_degree(int v, int nranks) {
  const int u = cb_attn_variant(v).ulysses;
  return u ? u : nranks;
}

int cb_attn_ulysses_check(const cb_attn_config_t *c, int nranks, char *why, size_t n) {
  for (int u = 1; u <= CB_ATTN_MAX_ULYSSES; u++)
    if ((c->ulysses >> (u - 1) & 1) && nranks % u) {
      snprintf(why, n, "--ulysses %d does not divide %d ranks (groups of U ranks, the ring across P/U of them)", u,
               nranks);
      return -1;
    }
  return 0;
}

int cb_attn_variant_check(int v, uint64_t seq, int nranks, char *why, size_t n) {
  const cb_attn_variant_t f = cb_attn_variant(v);
  if (f.ulysses && nranks % f.ulysses) {
    snprintf(why, n, "--ulysses %d does not divide %d ranks (groups of U ranks, the ring across P/U of them)",
             f.ulysses, nranks);
    return -1;
  }
  return cb_attn_layout_seq_check(seq, nranks, f.layout, why, n);
}

void cb_attn_variant_text(int v, char *buf, size_t n) {
  const cb_attn_variant_t f = cb_attn_variant(v);
  const char *layout = f.layout != cb_attn_default_layout(f.causal) ? cb_attn_layout_name(f.layout) : "";
  if (f.ulysses) snprintf(buf, n, "%s%sU=%d", layout, layout[0] ? " " : "", f.ulysses);
  else snprintf(buf, n, "%s", layout);
}

void cb_attn_nvtx_variant(const cb_attn_config_t *c, int v, char *buf, size_t n) {
  const cb_attn_variant_t f = cb_attn_variant(v);
  const int other = f.layout != cb_attn_default_layout(f.causal);
  int k = snprintf(buf, n, "-%s%s%s", f.causal ? "causal" : "noncausal", other ? "-" : "",
                   other ? cb_attn_layout_name(f.layout) : "");
  if (f.ulysses && k >= 0 && (size_t)k < n) k += snprintf(buf + k, n - (size_t)k, "-U%d", f.ulysses);
  if (c->nbatches > 1 && f.bslot < c->nbatches && k >= 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, "-b%d", c->batches[f.bslot]);
}

/* Ring-attention configuration (attn_config.h): defaults, checks, sharding and FLOPs. */
#include "attn_config.h"

#include "attn_block.h"
#include "attn_layout.h"
#include "decimal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cb_attn_defaults(cb_attn_config_t *c) {
  memset(c, 0, sizeof *c);
  c->batch = 1;
  c->batches[0] = 1;
  c->nbatches = 1;
  c->heads = 32;
  c->kv_heads = 32;
  c->head_dim = 128;
  c->causal_modes = CB_ATTN_NONCAUSAL | CB_ATTN_CAUSAL;
  c->block_kernels = CB_ATTN_BLOCK_COLLBENCH | CB_ATTN_BLOCK_CUDNN;
}

int cb_attn_parse_batches(const char *s, cb_attn_config_t *c, char *why, size_t n) {
  int b[CB_ATTN_MAX_BATCHES], nb = 0;
  const char *p = s;
  for (;;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    char item[16];
    long v;
    if (len >= sizeof item || (memcpy(item, p, len), item[len] = 0, cb_decimal_long(item, 1, 4096, &v))) {
      snprintf(why, n, "--batch: '%.*s' is not a batch size 1..4096", len > 40 ? 40 : (int)len, p);
      return -1;
    }
    for (int i = 0; i < nb; i++)
      if (b[i] == v) {
        snprintf(why, n, "--batch: %ld is given twice", v);
        return -1;
      }
    if (nb == CB_ATTN_MAX_BATCHES) {
      snprintf(why, n, "--batch: more than %d batch sizes", CB_ATTN_MAX_BATCHES);
      return -1;
    }
    b[nb++] = (int)v;
    if (!end) break;
    p = end + 1;
  }
  memcpy(c->batches, b, sizeof b[0] * (size_t)nb);
  c->nbatches = nb;
  c->batch = b[0];
  return 0;
}

int cb_attn_parse_causal(const char *s, int *bits) {
  if (strcmp(s, "0") == 0) *bits = CB_ATTN_NONCAUSAL;
  else if (strcmp(s, "1") == 0) *bits = CB_ATTN_CAUSAL;
  else if (strcmp(s, "both") == 0) *bits = CB_ATTN_NONCAUSAL | CB_ATTN_CAUSAL;
  else return -1;
  return 0;
}

int cb_attn_parse_pass(const char *s, int *pass) {
  if (strcmp(s, "fwd") == 0) *pass = CB_ATTN_PASS_FWD;
  else if (strcmp(s, "bwd") == 0) *pass = CB_ATTN_PASS_BWD;
  else if (strcmp(s, "both") == 0) *pass = CB_ATTN_PASS_BOTH;
  else return -1;
  return 0;
}

const char *cb_attn_pass_name(int pass) {
  switch (pass) {
  case CB_ATTN_PASS_FWD: return "fwd";
  case CB_ATTN_PASS_BWD: return "bwd";
  case CB_ATTN_PASS_BOTH: return "both";
  default: return "?";
  }
}

int cb_attn_config_check(const cb_attn_config_t *c, cb_dtype_t dtype, char *why, size_t n) {
  if (dtype != CB_BF16 && dtype != CB_HALF) {
    snprintf(why, n, "-d: ringattn supports bfloat16 and half, not '%s'", cb_dtype_name(dtype));
    return -1;
  }
  if (c->head_dim != 64 && c->head_dim != 128) {
    snprintf(why, n, "--head-dim: %d is not supported (accepted: 64, 128)", c->head_dim);
    return -1;
  }
  if (c->batch < 1 || c->heads < 1 || c->kv_heads < 1) {
    snprintf(why, n, "--batch, --heads and --kv-heads must be positive");
    return -1;
  }
  if (c->heads % c->kv_heads) {
    snprintf(why, n, "--kv-heads %d does not divide --heads %d (grouped K/V heads need heads = k * kv_heads)",
             c->kv_heads, c->heads);
    return -1;
  }
  return 0;
}

int cb_attn_seq_check(uint64_t seq, int nranks, int causal, char *why, size_t n) {
  return cb_attn_layout_seq_check(seq, nranks, cb_attn_default_layout(causal), why, n);
}

static int writable_dir(const char *path, const char *what, char *why, size_t n) {
  struct stat st;
  if (stat(path, &st)) {
    snprintf(why, n, "--save: %s '%s': %s", what, path, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(why, n, "--save: %s '%s' is not a directory", what, path);
    return -1;
  }
  if (access(path, W_OK | X_OK)) {
    snprintf(why, n, "--save: %s '%s' is not writable: %s", what, path, strerror(errno));
    return -1;
  }
  return 0;
}

int cb_attn_check_save_dir(const char *dir, char *why, size_t n) {
  /* the name without trailing slashes: "link/" would resolve a symlink that "link" names */
  char name[sizeof(((cb_attn_config_t *)0)->save_dir)];
  snprintf(name, sizeof name, "%s", dir);
  size_t len = strlen(name);
  while (len > 1 && name[len - 1] == '/') name[--len] = 0;
  struct stat st;
  if (lstat(name, &st) == 0) {
    snprintf(why, n,
             "--save: '%s' exists: name a new folder (collbench creates it, so nothing already there, a "
             "symlink least of all, receives the files)",
             dir);
    return -1;
  }
  if (errno != ENOENT) {
    snprintf(why, n, "--save: '%s': %s", dir, strerror(errno));
    return -1;
  }
  char *slash = strrchr(name, '/');
  if (!slash) snprintf(name, sizeof name, ".");
  else if (slash == name) name[1] = 0;
  else *slash = 0;
  return writable_dir(name, "parent of the new directory", why, n);
}

cb_attn_runs_t cb_attn_shard(uint64_t seq, int nranks, int rank, int causal) {
  return cb_attn_layout_runs(seq, nranks, rank, cb_attn_default_layout(causal), 1);
}

double cb_attn_flops(const cb_attn_config_t *c, uint64_t seq, int causal) {
  double s = (double)seq;
  double f = 4.0 * c->batch * c->heads * s * s * c->head_dim;
  return causal ? f / 2.0 : f;
}

uint64_t cb_attn_kv_shard_bytes(const cb_attn_config_t *c, uint64_t seq, int nranks, size_t elem) {
  return 2ull * (uint64_t)c->batch * (seq / (uint64_t)nranks) * (uint64_t)c->kv_heads * (uint64_t)c->head_dim * elem;
}

double cb_attn_pass_flops_factor(int pass) {
  switch (pass) {
  case CB_ATTN_PASS_FWD: return 1.0;
  case CB_ATTN_PASS_BWD: return 2.5;
  case CB_ATTN_PASS_BOTH: return 3.5;
  default: return 0.0;
  }
}

uint64_t cb_attn_pass_bytes(const cb_attn_config_t *c, uint64_t seq, int nranks, size_t elem, int pass) {
  if (nranks <= 1) return 0;
  const uint64_t kv = cb_attn_kv_shard_bytes(c, seq, nranks, elem), P = (uint64_t)nranks;
  const uint64_t fwd = (P - 1) * kv, dkv = P * cb_attn_kv_shard_bytes(c, seq, nranks, sizeof(float));
  return (CB_ATTN_PASS_HAS_FWD(pass) ? fwd : 0) + (CB_ATTN_PASS_HAS_BWD(pass) ? fwd + dkv : 0);
}

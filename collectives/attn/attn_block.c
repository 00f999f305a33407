/* The block-kernel choice of ringattn rows (attn_block.h). */
#include "attn_block.h"

#include <stdio.h>
#include <string.h>

#include "ringattn_schemes.h"

#define SCHEME_NAME(name, ...) #name,
const char *const cb_attn_schemes[] = {CB_RA_SCHEMES(SCHEME_NAME) NULL};

int cb_attn_block_parse(const char *s, int *bits) {
  if (strcmp(s, "collbench") == 0) *bits = CB_ATTN_BLOCK_COLLBENCH;
  else if (strcmp(s, "cudnn") == 0) *bits = CB_ATTN_BLOCK_CUDNN;
  else if (strcmp(s, "both") == 0) *bits = CB_ATTN_BLOCK_COLLBENCH | CB_ATTN_BLOCK_CUDNN;
  else return -1;
  return 0;
}

int cb_attn_block_is_cudnn(const char *algo) {
  const size_t len = strlen(algo), suf = strlen(CB_ATTN_CUDNN_SUFFIX);
  return len > suf && strcmp(algo + len - suf, CB_ATTN_CUDNN_SUFFIX) == 0;
}

static int is_scheme(const char *name) {
  for (int i = 0; cb_attn_schemes[i]; i++)
    if (strcmp(cb_attn_schemes[i], name) == 0) return 1;
  return 0;
}

/* Appends name (with the cuDNN suffix when cudnn) unless it is there already. */
static int add(char (*out)[CB_ATTN_NAME_MAX], int cap, int *nout, const char *name, int cudnn, char *why, size_t n) {
  char full[CB_ATTN_NAME_MAX];
  int len = snprintf(full, sizeof full, "%s%s", name, cudnn ? CB_ATTN_CUDNN_SUFFIX : "");
  if (len < 0 || (size_t)len >= sizeof full) {
    snprintf(why, n, "--algo: name '%s' is too long", name);
    return -1;
  }
  for (int i = 0; i < *nout; i++)
    if (strcmp(out[i], full) == 0) return 0;
  if (*nout == cap) {
    snprintf(why, n, "--algo/--block-kernel: more than %d rows per sweep point", cap);
    return -1;
  }
  memcpy(out[(*nout)++], full, sizeof full);
  return 0;
}

/* The rows of one scheme with the chosen kernels. */
static int add_rows(char (*out)[CB_ATTN_NAME_MAX], int cap, int *nout, const char *scheme, int kernels, char *why,
                    size_t n) {
  if ((kernels & CB_ATTN_BLOCK_COLLBENCH) && add(out, cap, nout, scheme, 0, why, n)) return -1;
  if ((kernels & CB_ATTN_BLOCK_CUDNN) && add(out, cap, nout, scheme, 1, why, n)) return -1;
  return 0;
}

int cb_attn_block_algos(const char (*in)[CB_ATTN_NAME_MAX], int nin, int kernels, int given,
                        char (*out)[CB_ATTN_NAME_MAX], int cap, int *nout, char *why, size_t n) {
  *nout = 0;
  if (kernels < 1 || kernels > (CB_ATTN_BLOCK_COLLBENCH | CB_ATTN_BLOCK_CUDNN)) {
    snprintf(why, n, "--block-kernel: no kernel chosen");
    return -1;
  }
  if (nin == 0) {
    if (kernels == (CB_ATTN_BLOCK_COLLBENCH | CB_ATTN_BLOCK_CUDNN)) return 0;
    for (int i = 0; cb_attn_schemes[i]; i++)
      if (add_rows(out, cap, nout, cb_attn_schemes[i], kernels, why, n)) return -1;
    return 0;
  }
  for (int i = 0; i < nin; i++) {
    if (!given || (!is_scheme(in[i]) && !cb_attn_block_is_cudnn(in[i]))) {
      if (add(out, cap, nout, in[i], 0, why, n)) return -1;
    } else if (cb_attn_block_is_cudnn(in[i])) {
      if (!(kernels & CB_ATTN_BLOCK_CUDNN)) {
        snprintf(why, n, "--algo %s is a cuDNN row, but --block-kernel collbench leaves cuDNN out", in[i]);
        return -1;
      }
      if (add(out, cap, nout, in[i], 0, why, n)) return -1;
    } else if (add_rows(out, cap, nout, in[i], kernels, why, n)) {
      return -1;
    }
  }
  return 0;
}

/* --save DIR for ringattn (ringattn_save.h): the first check's q, k, v, output
 * and log-sum-exp as NumPy .npy files, every rank's shard put back in sequence order, so a
 * user can verify collbench's attention with their own tools:
 *
 *   DIR/<algo>-<dtype>-S<seq>-<causal|noncausal>[-LAYOUT][-uU][-graph][-bwd|-both]/
 *       (-LAYOUT: a layout other than the causal default; -uU: a Ulysses row's degree; -graph:
 *        the graph-mode row's; -bwd, -both: --pass)
 *     q.npy, out.npy   float32 [batch][seq][heads][head_dim]
 *     k.npy, v.npy     float32 [batch][seq][kv_heads][head_dim]
 *     dout.npy, dq.npy float32 [batch][seq][heads][head_dim]     (--pass bwd, both: the loss
 *     dk.npy, dv.npy   float32 [batch][seq][kv_heads][head_dim]   gradient and the gradients)
 *     lse.npy          float32 [batch][heads][seq]  (natural log of the softmax denominator of
 *                      the scaled scores: out = softmax(q k^T * scale) v, scale = 1/sqrt(d))
 *     meta.json        shapes, dtype, causal, scale, algorithm, ranks, sequence layout, Ulysses
 *                      degree, command line
 * Values are the bf16/fp16 inputs and outputs widened to float32 exactly. DIR must be new: it,
 * each row's folder and each file are created here, never opened through a planted name
 * (attn_save_dir.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attn_layout.h"
#include "attn_merge.h"
#include "attn_save_dir.h"
#include "error_gpu.h"
#include "ringattn_save.h"
#include "strbuf.h"

static float half_to_float(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0) v = ldexpf((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexpf((float)(m | 1024), e - 25);
  return s ? -v : v;
}

static float bf16_to_float(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Device dtype array (n elements) -> new host float array; NULL when out of host memory. */
static float *to_host_float(const void *dev, size_t n, int bf16, int is_float) {
  float *f = malloc((n ? n : 1) * sizeof(float));
  if (!f) return NULL;
  if (is_float) {
    CB_CUDA(cudaMemcpy(f, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
    return f;
  }
  uint16_t *h = malloc((n ? n : 1) * sizeof(uint16_t));
  if (!h) {
    free(f);
    return NULL;
  }
  CB_CUDA(cudaMemcpy(h, dev, n * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) f[i] = bf16 ? bf16_to_float(h[i]) : half_to_float(h[i]);
  free(h);
  return f;
}

static int write_npy(int rowfd, const char *dir, const char *name, const float *data, const size_t *shape, int nd,
                     char *why, size_t n) {
  char path[1400], file[64], dict[256];
  snprintf(file, sizeof file, "%s.npy", name);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  int off = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
  size_t count = 1;
  for (int i = 0; i < nd; i++) {
    off += snprintf(dict + off, sizeof dict - (size_t)off, "%zu, ", shape[i]);
    count *= shape[i];
  }
  off += snprintf(dict + off, sizeof dict - (size_t)off, "), }");
  /* magic (6) + version (2) + header length (2) + dict padded with spaces, ending in '\n', to a
   * multiple of 64 bytes (format version 1.0) */
  size_t total = 10 + (size_t)off + 1;
  size_t pad = (64 - total % 64) % 64;
  size_t hlen = (size_t)off + pad + 1;
  FILE *f = cb_attn_save_create(rowfd, dir, file, why, n);
  if (!f) return -1;
  unsigned char head[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff), (unsigned char)(hlen >> 8)};
  int ok = fwrite(head, 1, sizeof head, f) == sizeof head && fwrite(dict, 1, (size_t)off, f) == (size_t)off;
  for (size_t i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF && fwrite(data, sizeof(float), count, f) == count;
  if (fclose(f) || !ok) {
    snprintf(why, n, "writing '%s' failed: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* Rank-ordered shards [P][batch][rows][width] -> [batch][S][width] in sequence order. */
static void to_sequence_rows(const cb_ra_t *x, const float *shards, float *seq, size_t width) {
  int B = x->cfg->batch;
  for (int j = 0; j < x->P; j++) {
    cb_attn_runs_t runs = cb_attn_layout_runs(x->S, x->P, j, x->layout, x->U);
    for (int b = 0; b < B; b++)
      for (int64_t i = 0; i < x->rows; i++) {
        int64_t pos = cb_attn_pos_at(runs.start0, runs.len0, runs.start1, runs.stride, i);
        memcpy(seq + ((size_t)b * x->S + (size_t)pos) * width,
               shards + (((size_t)j * B + b) * (size_t)x->rows + (size_t)i) * width, width * sizeof(float));
      }
  }
}

/* [P][batch][heads][rows] -> [batch][heads][S]. */
static void to_sequence_lse(const cb_ra_t *x, const float *shards, float *seq) {
  int B = x->cfg->batch, H = x->cfg->heads;
  for (int j = 0; j < x->P; j++) {
    cb_attn_runs_t runs = cb_attn_layout_runs(x->S, x->P, j, x->layout, x->U);
    for (int bh = 0; bh < B * H; bh++)
      for (int64_t i = 0; i < x->rows; i++) {
        int64_t pos = cb_attn_pos_at(runs.start0, runs.len0, runs.start1, runs.stride, i);
        seq[(size_t)bh * x->S + (size_t)pos] = shards[(((size_t)j * B * H) + (size_t)bh) * (size_t)x->rows + (size_t)i];
      }
  }
}

static int write_meta(int rowfd, const char *dir, const cb_inst_t *in, const cb_ra_t *x, char *why, size_t n) {
  const cb_attn_config_t *c = x->cfg;
  cb_strbuf_t b;
  cb_sb_init(&b);
  cb_sb_printf(&b, "{\n  \"algo\": ");
  cb_sb_json_str(&b, in->algo->name);
  cb_sb_printf(&b, ",\n  \"pass\": \"%s\"", cb_attn_pass_name(x->pass));
  cb_sb_printf(&b,
               ",\n  \"dtype\": \"%s\",\n  \"ranks\": %d,\n  \"seq\": %llu,\n  \"batch\": %d,\n  \"heads\": %d,\n"
               "  \"kv_heads\": %d,\n  \"head_dim\": %d,\n  \"causal\": %d,\n  \"scale\": %.9g,\n"
               "  \"sequence_layout\": \"%s\",\n  \"ulysses\": %d,\n"
               "  \"layout\": \"q, out: [batch][seq][heads][head_dim]; k, v: [batch][seq][kv_heads][head_dim]; "
               "lse: [batch][heads][seq]; dout, dq like q, dk, dv like k (pass bwd, both); float32, sequence order\",\n"
               "  \"seed_note\": \"inputs of the first correctness check\",\n  \"command\": ",
               cb_dtype_name(x->dtype), in->world->mpi.nranks, (unsigned long long)x->S, c->batch, c->heads,
               c->kv_heads, c->head_dim, x->causal, 1.0 / sqrt((double)c->head_dim), cb_attn_layout_name(x->layout),
               x->U);
  cb_sb_json_str(&b, c->cmdline ? c->cmdline : "");
  cb_sb_printf(&b, "\n}\n");
  FILE *f = cb_attn_save_create(rowfd, dir, "meta.json", why, n);
  int ok = f && fputs(b.s, f) >= 0;
  if (f && fclose(f)) ok = 0;
  cb_sb_free(&b);
  if (f && !ok) snprintf(why, n, "writing '%s/meta.json' failed: %s", dir, strerror(errno));
  return ok ? 0 : -1;
}

/* Gathers one float array per rank (same length) to rank 0; returns the new [P][len] array on
 * rank 0, NULL elsewhere (or on failure: *err set). */
static float *gather(const cb_ra_t *x, const float *mine, size_t len, int *err) {
  const cb_mpi_world_t *m = &x->w->mpi;
  float *all = NULL;
  if (len > (size_t)INT32_MAX) {
    *err = 1;
    return NULL;
  }
  if (m->rank == 0) {
    all = malloc(len * (size_t)x->P * sizeof(float) + 1);
    if (!all) *err = 1;
  }
  char why[64] = "out of host memory";
  if (!cb_mpi_agree(m->comm, !*err, why, sizeof why)) {
    free(all);
    *err = 1;
    return NULL;
  }
  MPI_Request req;
  CB_MPI(MPI_Igather(mine, (int)len, MPI_FLOAT, all, (int)len, MPI_FLOAT, 0, m->comm, &req));
  cb_mpi_wait(&req);
  return all;
}

int cb_ra_save(const cb_inst_t *in, const cb_ra_t *x, char *why, size_t n) {
  const cb_attn_config_t *c = x->cfg;
  const int collective = x->P > 1, root = in->world->mpi.rank == 0;
  if (!collective && !root) return 0;
  char sub[200], dir[1300];
  char form[64] = "";
  if (x->layout != cb_attn_default_layout(x->causal))
    snprintf(form, sizeof form, "-%s", cb_attn_layout_name(x->layout));
  if (x->U > 1) snprintf(form + strlen(form), sizeof form - strlen(form), "-u%d", x->U);
  if (c->nbatches > 1) snprintf(form + strlen(form), sizeof form - strlen(form), "-b%d", c->batch);
  snprintf(sub, sizeof sub, "%s-%s-S%llu-%s%s%s%s%s", in->algo->name, cb_dtype_name(x->dtype), (unsigned long long)x->S,
           x->causal ? "causal" : "noncausal", form, in->p.graph ? "-graph" : "",
           x->pass == CB_ATTN_PASS_FWD ? "" : "-", x->pass == CB_ATTN_PASS_FWD ? "" : cb_attn_pass_name(x->pass));
  snprintf(dir, sizeof dir, "%s/%s", c->save_dir, sub);
  int rowfd = root ? cb_attn_save_open_row(c->save_dir, sub, why, n) : -1, err = root && rowfd < 0;
  if (collective && !cb_mpi_agree(in->world->mpi.comm, !err, why, n)) {
    if (rowfd >= 0) close(rowfd);
    return -1;
  }
  if (err) return -1;

  struct {
    const char *name;
    const void *dev;
    size_t elems, width;
    int is_float, is_lse;
  } t[] = {
      {"q", x->q, x->q_elems, (size_t)c->heads * c->head_dim, 0, 0},
      {"k", x->kv, x->kv_elems, (size_t)c->kv_heads * c->head_dim, 0, 0},
      {"v", (const char *)x->kv + x->kv_elems * x->elem, x->kv_elems, (size_t)c->kv_heads * c->head_dim, 0, 0},
      {"out", x->out, x->q_elems, (size_t)c->heads * c->head_dim, 0, 0},
      {"lse", x->lse, x->lse_elems, 0, 1, 1},
      /* the backward's (ringattn_state.h; fp32 gradients) */
      {"dout", x->bwd.dout, x->q_elems, (size_t)c->heads * c->head_dim, 0, 0},
      {"dq", x->bwd.dq, x->q_elems, (size_t)c->heads * c->head_dim, 1, 0},
      {"dk", x->bwd.dkv, x->kv_elems, (size_t)c->kv_heads * c->head_dim, 1, 0},
      {"dv", x->bwd.dkv ? x->bwd.dkv + x->kv_elems : NULL, x->kv_elems, (size_t)c->kv_heads * c->head_dim, 1, 0},
  };
  const size_t nt = CB_ATTN_PASS_HAS_BWD(x->pass) ? sizeof t / sizeof t[0] : 5;
  int rc = 0;
  for (size_t i = 0; i < nt; i++) {
    float *mine = to_host_float(t[i].dev, t[i].elems, x->bf16, t[i].is_float);
    int e = mine == NULL;
    float *all = collective ? gather(x, mine, t[i].elems, &e) : mine;
    if (e) {
      snprintf(why, n, "out of host memory (or a shard over 2^31 elements) saving %s", t[i].name);
      rc = -1;
    } else if (root) {
      float *seq = malloc(t[i].elems * (size_t)x->P * sizeof(float) + 1);
      if (!seq) {
        snprintf(why, n, "out of host memory saving %s", t[i].name);
        rc = -1;
      } else {
        size_t shape[4];
        int nd = 4;
        if (t[i].is_lse) {
          to_sequence_lse(x, all, seq);
          shape[0] = (size_t)c->batch, shape[1] = (size_t)c->heads, shape[2] = x->S, nd = 3;
        } else {
          to_sequence_rows(x, all, seq, t[i].width);
          shape[0] = (size_t)c->batch, shape[1] = x->S;
          shape[2] = t[i].width / (size_t)c->head_dim, shape[3] = (size_t)c->head_dim;
        }
        if (rc == 0) rc = write_npy(rowfd, dir, t[i].name, seq, shape, nd, why, n);
        free(seq);
      }
    }
    if (collective) free(all);
    free(mine);
    if (collective && !cb_mpi_agree(in->world->mpi.comm, rc == 0, why, n)) rc = -1;
    if (rc) break;
  }
  if (rc == 0 && root && write_meta(rowfd, dir, in, x, why, n)) rc = -1;
  if (rowfd >= 0) close(rowfd);
  if (collective && !cb_mpi_agree(in->world->mpi.comm, rc == 0, why, n)) return -1;
  return rc;
}

/* Result rows and where they go: the nccl-tests-style table on stdout (as rows finish), a CSV
 * file and a JSON file (docs/results-format.md documents both). Only rank 0 reports.
 *
 * Nothing finished is lost: each row is flushed to the CSV and appended to FILE.partial.jsonl
 * (one JSON object per line, the metadata first) the moment it completes. cb_report_close
 * writes the complete JSON document to a new file beside FILE, renames it over FILE (atomic on
 * POSIX) and removes the .partial.jsonl. A crash leaves the CSV and the .partial.jsonl with
 * every finished row. Every one of these files is created new in its folder and renamed over
 * its name (base/newfile.h): a symlink planted at a name is replaced, never written through; a
 * directory or device there is refused at open. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "strbuf.h"

/* Column order of the CSV; the JSON rows use the same names. */
#define CB_CSV_HEADER                                                                              \
  "family,algo,dtype,op,bytes,count,inplace,ranks,nodes,gpu,time_us_mean,time_us_max,"             \
  "time_us_p50,time_us_p99,algbw_gbs,busbw_gbs,wrong,note,mode,iters,mem_bytes,model,tokens,"      \
  "hidden,topk,experts,routing,phase,remote_gbs,imbalance,net_bytes,nvlink_bytes,seq,batch,heads," \
  "kv_heads,head_dim,"                                                                             \
  "causal,tflops,comm_us,compute_us,overlap_eff,ring_over_single,err_max,err_mean,sms,"            \
  "slowdown_comm,slowdown_compute,pass"

typedef struct cb_row {
  const char *family, *algo, *dtype, *op;
  uint64_t bytes, count;
  int inplace;
  int ranks, nodes;
  const char *gpu;
  int timed; /* 0: skipped / not supported (note says why); time and bandwidth fields empty */
  double time_us_mean, time_us_max, time_us_p50, time_us_p99, algbw_gbs, busbw_gbs;
  long long wrong; /* -1: not checked (-c 0) */
  char note[512];
  const char *mode; /* eager | graph */
  int iters;
  uint64_t mem_bytes;
  int sms; /* SMs the custom kernels occupied: > 0 that many, < 0 none (copy engine: written 0),
              0 not reported (NCCL, skipped rows: empty) */
  /* moe only (is_moe = 0 leaves these columns empty) */
  int is_moe;
  const char *model, *routing, *phase;
  uint64_t tokens;
  int hidden, topk, experts;
  double remote_gbs, imbalance;
  double net_bytes, nvlink_bytes; /* bytes per rank over the network / NVLink (NaN: not reported) */
  /* the roundtrip_loaded row of --overlap (loaded = 1; else these columns stay empty): the round
   * trip's and the compute kernel's times beside each other over their times alone */
  int loaded;
  double slowdown_comm, slowdown_compute;
  /* ringattn only (is_attn = 0 leaves these columns empty; docs/results-format.md defines them) */
  int is_attn;
  uint64_t seq;
  int batch, heads, kv_heads, head_dim, causal;
  const char *pass; /* fwd | bwd | both (--pass) */
  double tflops, comm_us, compute_us, overlap_eff, ring_over_single, err_max, err_mean;
} cb_row_t;

typedef struct cb_report {
  FILE *table; /* stdout on rank 0, NULL elsewhere */
  FILE *csv;
  FILE *partial;
  char json_path[1024], partial_path[1100], csv_path[1024];
  /* errno of the first failed write (0: none): a full disk must not pass as a finished run */
  int csv_errno, partial_errno;
  cb_strbuf_t meta; /* metadata object text */
  cb_strbuf_t rows; /* row objects joined by ",\n" for the final JSON */
  int nrows;
  int table_kind; /* 0 none yet, 1 classic, 2 moe, 3 ringattn: header printed before the first row */
} cb_report_t;

/* Opens the outputs (either path may be empty). meta_json is a JSON object's text. Returns 0,
 * or -1 with why (file cannot be created). table may be NULL. */
int cb_report_open(cb_report_t *r, FILE *table, const char *csv_path, const char *json_path, const char *meta_json,
                   char *why, size_t n);
void cb_report_row(cb_report_t *r, const cb_row_t *row);
/* Writes the final JSON atomically; extra_json (may be NULL) is merged as top-level fields
 * (e.g. "\"exit_code\": 0"). Returns 0 or -1 with why. */
int cb_report_close(cb_report_t *r, const char *extra_json, char *why, size_t n);

/* Row → text, exposed for the tests. */
void cb_row_csv(const cb_row_t *row, cb_strbuf_t *out);  /* no newline */
void cb_row_json(const cb_row_t *row, cb_strbuf_t *out); /* one object, one line */

#endif

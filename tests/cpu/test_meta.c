/* CPU test of the metadata (launcher/meta.c collects it, meta_json.c and meta_header.c write
 * it) without a GPU: a world filled by hand on one MPI rank, two algorithms; the JSON must hold
 * the world's facts, the selected algorithms with their descriptions, the CB_* and NCCL_*
 * variables (and not unrelated ones), and the header must list the algorithms before the
 * devices, as collbench prints them, and say when ranks share a GPU (gpu_shared in the JSON).
 * The JSON holds the hardware limits (hw_limits.h; nulls and limits_note where NVML is missing);
 * with the world marked as two nodes it lists this machine's NICs from /sys. The first JSON
 * text and the two-node one go to stdout (two lines) for check_meta.py to parse with Python's
 * json module. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "meta.h"
#include "meta_header.h"
#include "meta_json.h"

static void describe(const cb_world_t *w, char *buf, size_t n) { snprintf(buf, n, "grid for %d SMs", w->grid_sms); }

static const cb_algo_t kPlain = {.name = "plain", .family = CB_ALLREDUCE, .summary = "no description"};
static const cb_algo_t kDescribed = {
    .name = "described", .family = CB_ALLREDUCE, .summary = "with \"quotes\"", .describe = describe};

/* The metadata of w as JSON and header text (rank 0; the others get empty text). */
static void collect(const cb_world_t *w, const cb_args_t *a, const cb_algo_t *const *algos, cb_strbuf_t *json,
                    cb_strbuf_t *header) {
  cb_meta_t m;
  cb_meta_collect(&m, w, a, algos, 2);
  if (w->mpi.rank == 0) {
    cb_meta_json(&m, json);
    cb_meta_header(&m, header);
  }
  cb_meta_free(&m);
}

int main(int argc, char **argv) {
  setenv("CB_SMS", "8", 1);
  setenv("NCCL_PROTO", "Simple", 1);
  setenv("UNRELATED_TEST_VAR", "x", 1);
  MPI_Init(&argc, &argv);
  static cb_world_t w;
  cb_mpi_world_init(&w.mpi, 0);
  snprintf(w.gpu_name, sizeof w.gpu_name, "Test GPU");
  snprintf(w.busid, sizeof w.busid, "0000:19:00.0");
  snprintf(w.binding, sizeof w.binding, "cores 0-3");
  w.sm_count = 132;
  w.grid_sms = 8;
  w.nccl_version = 22803;
  cb_args_t *a = calloc(1, sizeof *a);
  if (!a) return 1;
  a->family = CB_ALLREDUCE;
  a->iters = 7;
  a->modes = CB_MODE_GRAPH;
  snprintf(a->cmdline, sizeof a->cmdline, "collbench allreduce -n 7");
  const cb_algo_t *algos[] = {&kPlain, &kDescribed};
  cb_strbuf_t json, header;
  cb_sb_init(&json);
  cb_sb_init(&header);
  collect(&w, a, algos, &json, &header);
  if (w.mpi.rank == 0) {
    const char *alg = strstr(header.s, "#  algorithm described"), *dev = strstr(header.s, "# Using devices");
    CHECK(strstr(header.s, "#  algorithm plain") != NULL, "header lacks the first algorithm: %s", header.s);
    CHECK(alg && dev && alg < dev, "header must list algorithms before devices: %s", header.s);
    CHECK(strstr(header.s, "grid for 8 SMs") != NULL, "header lacks the description: %s", header.s);
    CHECK(strstr(header.s, "Test GPU") && strstr(header.s, "NCCL 2.28.3"), "header lacks GPU or NCCL: %s", header.s);
    CHECK(!strstr(header.s, "shared GPUs") && strstr(json.s, "\"gpu_shared\":false"), "no shared GPU: %s", json.s);
    CHECK(strstr(json.s, ",\"limits\":{\"nvlink_gbs\":") && strstr(json.s, "\"nics\":[]},\"limits_note\":"),
          "JSON lacks the limits (no NICs on one node): %s", json.s);
    puts(json.s);
  }
  /* ranks sharing a GPU: the header says so and why times mean nothing, the JSON flags it; in a
   * node (CB_SHARE_GPUS=1) or across virtual nodes only */
  for (int in_node = 0; in_node < 2; in_node++) {
    cb_sb_free(&json);
    cb_sb_free(&header);
    cb_sb_init(&json);
    cb_sb_init(&header);
    w.gpu_shared = 1;
    w.gpu_shared_in_node = in_node;
    collect(&w, a, algos, &json, &header);
    if (w.mpi.rank != 0) continue;
    CHECK(strstr(header.s, "#  shared GPUs: ") && strstr(header.s, "correctness only"), "header: %s", header.s);
    CHECK(!strstr(header.s, "CB_SHARE_GPUS=1") == !in_node, "in_node %d: header: %s", in_node, header.s);
    CHECK(strstr(json.s, "\"gpu_shared\":true") != NULL, "JSON lacks gpu_shared true: %s", json.s);
  }
  /* two nodes: the NICs of this machine (check_meta.py reads /sys itself) */
  cb_sb_free(&json);
  cb_sb_free(&header);
  cb_sb_init(&json);
  cb_sb_init(&header);
  w.gpu_shared = w.gpu_shared_in_node = 0;
  const int nnodes = w.mpi.nnodes;
  w.mpi.nnodes = 2;
  collect(&w, a, algos, &json, &header);
  w.mpi.nnodes = nnodes;
  if (w.mpi.rank == 0) puts(json.s);
  cb_sb_free(&json);
  cb_sb_free(&header);
  /* a NIC's name is written as a JSON string: quotes and backslashes escaped (issue 42 P26) */
  if (w.mpi.rank == 0) {
    cb_meta_t m;
    cb_meta_collect(&m, &w, a, algos, 2);
    m.nnics = 1;
    snprintf(m.nics[0].name, sizeof m.nics[0].name, "q\"x\\y");
    m.nics[0].gbs = 12.5;
    cb_sb_init(&json);
    cb_meta_json(&m, &json);
    CHECK(strstr(json.s, "{\"name\":\"q\\\"x\\\\y\",\"gbs\":12.5") != NULL, "NIC name not escaped: %s", json.s);
    cb_sb_free(&json);
    cb_meta_free(&m);
  }
  free(a);
  cb_mpi_world_free(&w.mpi);
  MPI_Finalize();
  return cb_test_finish("test_meta");
}

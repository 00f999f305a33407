/* Writes -J files (launcher/report_ncclt_json.c) from fixed rows, for check_ncclt_json.py to
 * compare with real nccl-tests -J output: 2 ranks, sizes 8, 64 and 512 B, out-of-place then
 * in-place, two algorithms (nccl timed, oneshot skipped in-place), 10 iterations each; and a
 * rooted family's rows (broadcast, -r -1: every root in turn, each row's root in its root column).
 *
 * usage: test_ncclt_json DIR   (writes DIR/iter.json with -I 1, DIR/plain.json without, and
 *                               DIR/rooted.json: sizes 8 and 64 B, roots 1 then 0) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_ncclt_json.h"

#define ITERS 10
#define RANKS 2

static cb_row_t row(const char *algo, uint64_t bytes, int inplace, double us, int timed) {
  cb_row_t r;
  memset(&r, 0, sizeof r);
  r.family = "allreduce";
  r.algo = algo;
  r.dtype = "float";
  r.op = "sum";
  r.bytes = bytes;
  r.count = bytes / 4;
  r.inplace = inplace;
  r.ranks = RANKS;
  r.mode = "eager";
  r.iters = ITERS;
  r.timed = timed;
  r.time_us_mean = us;
  r.algbw_gbs = bytes / us / 1e3;
  r.busbw_gbs = r.algbw_gbs; /* 2 ranks: 2 (n-1) / n = 1 */
  r.wrong = timed ? 0 : -1;
  if (!timed) snprintf(r.note, sizeof r.note, "skipped: oneshot has no in-place form here");
  return r;
}

/* Opens path as a -J file of a 2-rank run over the first npoints of 8, 64, 512 B. */
static int open_run(cb_ncclt_json_t *j, const char *path, char **argv, const char **env, int nenv, int npoints,
                    int per_iter) {
  static cb_args_t a; /* large */
  memset(&a, 0, sizeof a);
  a.npoints = npoints;
  a.points[0] = 8, a.points[1] = 64, a.points[2] = 512;
  a.iters = ITERS, a.warmup = 2, a.check_iters = 1, a.agg_iters = 1, a.graph_launches = 1, a.cycles = 1;
  a.modes = CB_MODE_EAGER;
  a.iter_timing = per_iter;
  cb_ncclt_device_t dev[RANKS] = {{0, 4132, 0, "vnode0", "0000:00:06", "NVIDIA H200"},
                                  {1, 4133, 0, "vnode1", "0000:00:06", "NVIDIA H200"}};
  cb_ncclt_run_t run = {.argc = 12,
                        .argv = argv,
                        .env = env,
                        .nenv = nenv,
                        .nccl_version = 22803,
                        .a = &a,
                        .ndevices = RANKS,
                        .devices = dev};
  char why[512];
  if (cb_ncclt_json_open(j, path, &run, why, sizeof why)) {
    fprintf(stderr, "open: %s\n", why);
    return 1;
  }
  return 0;
}

/* Writes the file, with the bus-bandwidth bar bar (NULL: none). */
static int close_run(cb_ncclt_json_t *j, const cb_avg_busbw_t *avg, const char *bar) {
  cb_gate_t g;
  char why[512];
  cb_gate_parse(&g, NULL, bar, why, sizeof why);
  if (cb_ncclt_json_close(j, avg, &g, why, sizeof why)) {
    fprintf(stderr, "close: %s\n", why);
    return 1;
  }
  return 0;
}

static int write_one(const char *path, int per_iter) {
  static char *argv[] = {"collbench", "allreduce", "-b", "8", "-e", "512", "-f", "8", "-n", "10", "-J", "x.json"};
  static const char *env[] = {"HOME=/root", "NCCL_DEBUG=WARN", "CB_SMS=8", "SECRET_TOKEN=x"};
  cb_ncclt_json_t j;
  if (open_run(&j, path, argv, env, 4, 3, per_iter)) return 1;
  cb_avg_busbw_t avg = {0};
  double times[RANKS * ITERS];
  for (int s = 0; s < 3; s++) {
    uint64_t bytes = 8ull << (3 * s);
    for (int ip = 0; ip < 2; ip++) {
      for (int r = 0; r < RANKS; r++)
        for (int i = 0; i < ITERS; i++) times[r * ITERS + i] = 20.0 + s + ip + (i == 0 ? 30.0 : 0.0) + r * (i % 3);
      cb_row_t n = row("nccl", bytes, ip, 25.0 + s + ip, 1), o = row("oneshot", bytes, ip, 12.0 + s, !ip);
      cb_ncclt_json_row(&j, &n, per_iter ? times : NULL, ITERS, RANKS);
      cb_ncclt_json_row(&j, &o, per_iter && !ip ? times : NULL, ITERS, RANKS);
      cb_avg_busbw_add(&avg, "nccl", n.busbw_gbs);
      if (!ip) cb_avg_busbw_add(&avg, "oneshot", o.busbw_gbs);
    }
  }
  return close_run(&j, &avg, per_iter ? "1000" : NULL);
}

/* broadcast at -r -1: per size, root 1's out-of-place and in-place rows, then root 0's (the
 * order the roots come in is the run's, not sorted) */
static int write_rooted(const char *path) {
  static char *argv[] = {"collbench", "broadcast", "-b", "8", "-e", "64", "-f", "8", "-r", "-1", "-J", "x.json"};
  cb_ncclt_json_t j;
  if (open_run(&j, path, argv, NULL, 0, 2, 0)) return 1;
  cb_avg_busbw_t avg = {0};
  for (int s = 0; s < 2; s++)
    for (int root = 1; root >= 0; root--)
      for (int ip = 0; ip < 2; ip++) {
        cb_row_t r = row("nccl", 8ull << (3 * s), ip, 20.0 + s + root, 1);
        r.family = "broadcast";
        r.op = "none";
        r.groups = CB_COLS_ROOT;
        cb_row_int(&r, CB_COL_ROOT, root);
        cb_ncclt_json_row(&j, &r, NULL, 0, 0);
        cb_avg_busbw_add(&avg, "nccl", r.busbw_gbs);
      }
  return close_run(&j, &avg, NULL);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_ncclt_json DIR\n");
    return 2;
  }
  char a[1024], b[1024], c[1024];
  snprintf(a, sizeof a, "%s/iter.json", argv[1]);
  snprintf(b, sizeof b, "%s/plain.json", argv[1]);
  snprintf(c, sizeof c, "%s/rooted.json", argv[1]);
  return write_one(a, 1) || write_one(b, 0) || write_rooted(c);
}

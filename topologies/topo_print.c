/* Table and JSON output of collbench-topo.
 *
 * The table is what a person checks before a run (does every rank sit next to its GPU?); the
 * JSON carries the same plan with full lists for collbench-run and the tests. Lists in the
 * table are ranges ("0-5,48-53"); in JSON they are plain arrays so no consumer has to parse
 * ranges. */
#include <string.h>

#include "text.h"
#include "topo_print.h"

static void num_or_dash(int v, char *buf, size_t n) {
  if (v < 0) snprintf(buf, n, "-");
  else snprintf(buf, n, "%d", v);
}

int cb_topo_print_table(const cb_placement_t *pl, int nranks, FILE *out) {
  char cores[8192], pus[8192], numa[16], pkg[16];
  int err = 0;
  err |= fprintf(out, "# %s: %d GPU(s), %s\n", pl->source, pl->ngpus,
                 pl->shared ? "each with all of its local cores (shared, not a placement)"
                            : "one rank per GPU on its own local cores") < 0;
  err |= fprintf(out, "%-4s  %-3s  %-12s  %-4s  %-7s  %-16s  %s\n", "rank", "GPU", "PCI bus id", "NUMA", "package",
                 pl->shared ? "local cores" : "cores", "PUs (OS index)") < 0;
  for (int i = 0; i < nranks && i < pl->ngpus; i++) {
    const cb_gpu_place_t *g = &pl->gpus[i];
    cb_format_list(g->cores, g->ncores, cores, sizeof cores);
    cb_format_list(g->pus, g->npus, pus, sizeof pus);
    num_or_dash(g->numa_os_index, numa, sizeof numa);
    num_or_dash(g->package_logical_index, pkg, sizeof pkg);
    err |= fprintf(out, "%4d  %3d  %-12s  %4s  %7s  %-16s  %s\n", i, g->index, g->busid, numa, pkg, cores, pus) < 0;
  }
  return err ? -1 : 0;
}

/* JSON strings through collbench's own writer (text.h): valid UTF-8 whatever the bytes of an
 * XML path or bus id. */
typedef struct json_out {
  FILE *f;
  int err;
} json_out_t;

static void json_put(void *ctx, const char *p, size_t n) {
  json_out_t *o = ctx;
  o->err |= fwrite(p, 1, n, o->f) != n;
}

static int json_string(FILE *out, const char *s) {
  json_out_t o = {out, 0};
  cb_json_str_to(s, json_put, &o);
  return o.err;
}

static int json_ints(FILE *out, const char *key, const int *v, int nv) {
  int err = fprintf(out, ", \"%s\": [", key) < 0;
  for (int i = 0; i < nv; i++) err |= fprintf(out, i ? ", %d" : "%d", v[i]) < 0;
  return err | (fputc(']', out) == EOF);
}

int cb_topo_print_json(const cb_placement_t *pl, int nranks, FILE *out) {
  int err = fputs("[\n", out) == EOF;
  for (int i = 0; i < nranks && i < pl->ngpus; i++) {
    const cb_gpu_place_t *g = &pl->gpus[i];
    err |= fprintf(out, "  {\"local_rank\": %d, \"gpu_index\": %d, \"gpu_pci_busid\": ", i, g->index) < 0;
    err |= json_string(out, g->busid);
    err |= fprintf(out,
                   ", \"numa_os_index\": %d, \"package_logical_index\": %d, "
                   "\"exclusive\": %s, \"topology\": ",
                   g->numa_os_index, g->package_logical_index, pl->shared ? "false" : "true") < 0;
    err |= json_string(out, pl->source);
    err |= json_ints(out, "cores", g->cores, g->ncores);
    err |= json_ints(out, "pus", g->pus, g->npus);
    err |= json_ints(out, "local_pus", g->local_pus, g->nlocal_pus);
    err |= fputs(i + 1 < nranks && i + 1 < pl->ngpus ? "},\n" : "}\n", out) == EOF;
  }
  err |= fputs("]\n", out) == EOF;
  return err ? -1 : 0;
}

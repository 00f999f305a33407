/* Implementation of meta_json.h. The keys and their order are the results format's "meta"
 * object; tests/cpu/check_meta.py parses it. */
#include "meta_json.h"

#include <stdio.h>
#include <string.h>

#include "libraries.h"

static void rank_json(const cb_meta_rank_t *r, cb_strbuf_t *out) {
  cb_sb_printf(out, "{\"rank\":%d,\"host\":", r->rank);
  cb_sb_json_str(out, r->host);
  cb_sb_printf(out, ",\"pid\":%d,\"local_rank\":%d,\"node\":%d,\"node_name\":", r->pid, r->local_rank, r->node);
  cb_sb_json_str(out, r->node_name);
  cb_sb_printf(out, ",\"device\":%d,\"pci_busid\":", r->device);
  cb_sb_json_str(out, r->busid);
  cb_sb_printf(out, ",\"gpu\":");
  cb_sb_json_str(out, r->gpu);
  cb_sb_printf(out, ",\"sm_count\":%d,\"cc\":\"%d.%d\",\"gpu_mem_bytes\":%zu,\"binding\":", r->sm_count, r->cc_major,
               r->cc_minor, r->gpu_mem);
  cb_sb_json_str(out, r->binding);
  cb_sb_printf(out, "}");
}

/* The distinct host names, in rank order. */
static void hosts_json(const cb_meta_t *m, cb_strbuf_t *out) {
  cb_sb_printf(out, "[");
  for (int r = 0, first = 1; r < m->nranks; r++) {
    int seen = 0;
    for (int q = 0; q < r && !seen; q++) seen = strcmp(m->ranks[r].host, m->ranks[q].host) == 0;
    if (seen) continue;
    cb_sb_printf(out, "%s", first ? "" : ",");
    cb_sb_json_str(out, m->ranks[r].host);
    first = 0;
  }
  cb_sb_printf(out, "]");
}

static void env_json(const cb_meta_t *m, cb_strbuf_t *out) {
  cb_sb_printf(out, "{");
  for (int i = 0; i < m->nenv; i++) {
    const char *e = m->env[i], *eq = strchr(e, '=');
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(eq - e), e);
    cb_sb_printf(out, "%s", i ? "," : "");
    cb_sb_json_str(out, key);
    cb_sb_printf(out, ":");
    cb_sb_json_str(out, eq + 1);
  }
  cb_sb_printf(out, "}");
}

static void algos_json(const cb_meta_t *m, cb_strbuf_t *out) {
  cb_sb_printf(out, "[");
  for (int k = 0; k < m->nalgos; k++) {
    cb_sb_printf(out, "%s{\"name\":", k ? "," : "");
    cb_sb_json_str(out, m->algos[k].algo->name);
    cb_sb_printf(out, ",\"summary\":");
    cb_sb_json_str(out, m->algos[k].algo->summary);
    cb_sb_printf(out, ",\"description\":");
    cb_sb_json_str(out, m->algos[k].desc);
    cb_sb_printf(out, "}");
  }
  cb_sb_printf(out, "]");
}

/* A figure, or null where unknown (negative). */
static void num_json(cb_strbuf_t *out, double v) {
  if (v < 0) cb_sb_printf(out, "null");
  else cb_sb_printf(out, "%g", v);
}

/* Which GPU a limit is: {"rank", "host", "pci_busid"}, or null. */
static void gpu_json(const cb_meta_t *m, int r, cb_strbuf_t *out) {
  if (r < 0) {
    cb_sb_printf(out, "null");
    return;
  }
  cb_sb_printf(out, "{\"rank\":%d,\"host\":", r);
  cb_sb_json_str(out, m->ranks[r].host);
  cb_sb_printf(out, ",\"pci_busid\":");
  cb_sb_json_str(out, m->ranks[r].busid);
  cb_sb_printf(out, "}");
}

/* "limits" (plots/limits.py reads it: the one record of what bounds the run, plus which GPU)
 * and "limits_note". */
static void limits_json(const cb_meta_t *m, cb_strbuf_t *out) {
  cb_sb_printf(out, ",\"limits\":{\"nvlink_gbs\":");
  num_json(out, m->nvlink_gbs);
  cb_sb_printf(out, ",\"nvlink_links\":");
  num_json(out, m->nvlink_links);
  cb_sb_printf(out, ",\"nvlink_gpu\":");
  gpu_json(m, m->nvlink_rank, out);
  cb_sb_printf(out, ",\"pcie\":");
  if (m->pcie_rank < 0) {
    cb_sb_printf(out, "null");
  } else {
    cb_sb_printf(out, "{\"gen\":%d,\"width\":%d,\"max_gen\":", m->pcie_gen, m->pcie_width);
    num_json(out, m->pcie_max_gen);
    cb_sb_printf(out, ",\"max_width\":");
    num_json(out, m->pcie_max_width);
    cb_sb_printf(out, ",\"gpu\":");
    gpu_json(m, m->pcie_rank, out);
    cb_sb_printf(out, "}");
  }
  cb_sb_printf(out, ",\"nics\":[");
  for (int i = 0; i < m->nnics; i++) {
    cb_sb_printf(out, "%s{\"name\":", i ? "," : "");
    cb_sb_json_str(out, m->nics[i].name);
    cb_sb_printf(out, ",\"gbs\":");
    num_json(out, m->nics[i].gbs);
    cb_sb_printf(out, "}");
  }
  cb_sb_printf(out, "]},\"limits_note\":");
  cb_sb_json_str(out, m->limits_note);
}

static const char *modes_name(int modes) {
  if (modes == (CB_MODE_EAGER | CB_MODE_GRAPH)) return "both";
  return modes == CB_MODE_GRAPH ? "graph" : "eager";
}

void cb_meta_json(const cb_meta_t *m, cb_strbuf_t *out) {
  const cb_world_t *w = m->w;
  const cb_args_t *a = m->a;
  cb_sb_printf(out, "{\"tool\":\"collbench\",\"version\":");
  cb_sb_json_str(out, m->version);
  cb_sb_printf(out, ",\"git_rev\":");
  cb_sb_json_str(out, m->git_rev);
  cb_sb_printf(out, ",\"date\":\"%s\",\"command\":", m->date);
  cb_sb_json_str(out, a->cmdline);
  cb_sb_printf(out, ",\"family\":\"%s\",\"ranks\":%d,\"nodes\":%d,\"hosts\":", cb_family_name(a->family), m->nranks,
               w->mpi.nnodes);
  hosts_json(m, out);
  cb_sb_printf(out, ",\"virtual_cluster\":%s,\"gpu_shared\":%s,\"rank_info\":[",
               w->mpi.virtual_nodes ? "true" : "false", w->gpu_shared ? "true" : "false");
  for (int r = 0; r < m->nranks; r++) {
    cb_sb_printf(out, "%s", r ? "," : "");
    rank_json(&m->ranks[r], out);
  }
  cb_sb_printf(out, "],\"driver\":");
  cb_sb_json_str(out, m->driver);
  cb_sb_printf(out, ",\"cuda_driver_api\":%d,\"cuda_runtime\":%d,\"nccl_version\":\"%s\",\"nccl_version_code\":%d",
               w->driver_version, w->runtime_version, m->nccl, w->nccl_version);
  cb_sb_printf(out, ",\"mpi\":");
  cb_sb_json_str(out, m->mpi);
  cb_libraries_json(out);
  cb_sb_printf(out, ",\"peer_memory\":%s,\"peer_memory_note\":", w->peer_ok ? "true" : "false");
  cb_sb_json_str(out, w->peer_why);
  limits_json(m, out);
  cb_sb_printf(out, ",\"env\":");
  env_json(m, out);
  cb_sb_printf(out,
               ",\"options\":{\"iters\":%d,\"warmup\":%d,\"check_iters\":%d,\"seed\":%llu,\"timeout_s\":%g,"
               "\"modes\":\"%s\",\"no_bind\":%d},\"algorithms\":",
               a->iters, a->warmup, a->check_iters, (unsigned long long)a->seed, a->timeout_s, modes_name(a->modes),
               a->no_bind);
  algos_json(m, out);
  cb_sb_printf(out, "}");
}

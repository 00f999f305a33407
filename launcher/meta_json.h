/* The run's metadata (meta.h) as one JSON object: the "meta" of the JSON results file and the
 * first line of its .partial.jsonl (report.h). */
#ifndef CB_META_JSON_H
#define CB_META_JSON_H

#include "meta.h"
#include "strbuf.h"

/* Appends one JSON object to out: tool, version, git revision, date, command, family, ranks,
 * nodes and hosts, rank_info (one object per rank), driver, CUDA, NCCL and MPI versions, peer
 * memory, the hardware limits (limits_note: why one is null), the recorded environment, the
 * options and the selected algorithms. Rank 0's m only
 * (cb_meta_collect fills it there). */
void cb_meta_json(const cb_meta_t *m, cb_strbuf_t *out);

#endif

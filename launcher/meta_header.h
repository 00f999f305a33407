/* The run's metadata (meta.h) as the human header collbench prints on stdout before its rows:
 * "#" lines naming the algorithms, the command, every rank's host, GPU and CPU binding, and the
 * software versions. */
#ifndef CB_META_HEADER_H
#define CB_META_HEADER_H

#include "meta.h"
#include "strbuf.h"

/* Appends the header's lines to out: one "#  algorithm" line each, the collbench line, the
 * "#  Rank" lines, notes on a virtual cluster or shared GPUs, and the versions line. Rank 0's m
 * only (cb_meta_collect fills it there). */
void cb_meta_header(const cb_meta_t *m, cb_strbuf_t *out);

#endif

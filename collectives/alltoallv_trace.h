/* A routing trace for alltoallv's `--counts trace:FILE`: which experts each token of each rank
 * chose, as a MoE layer logged it in a real run, so alltoallv moves the dispatch traffic that run
 * would have moved. Text, one token per line: its source rank, then the global ids of the experts
 * it was routed to, whitespace-separated decimal integers ("3 17 200 5" = a token of rank 3 sent
 * to experts 17, 200 and 5). Lines starting with '#' and blank lines are skipped. As in the MoE
 * family (moe_router.h), the experts (--model's count) are split evenly over the ranks, and a
 * token goes once to every rank hosting at least one of its experts: cell [i][j] of the counts is
 * in proportion to the tokens of rank i that go to rank j (alltoallv_counts.h scales them).
 *
 * The file is read by base/readfile.h (regular file, no symlink, size cap, UTF-8 without NUL);
 * this parser refuses, with one line naming the file and the line, a token without an expert, a
 * value that is not decimal digits (no sign, fraction, exponent), a rank past
 * CB_A2AV_TRACE_MAX_RANK, an expert id past CB_A2AV_TRACE_MAX_EXPERT, more than
 * CB_A2AV_TRACE_MAX_TOPK experts on one line, and a file without tokens. Ranks and experts are
 * held to the run's rank and expert counts once those are known (alltoallv_counts.h). */
#ifndef CB_ALLTOALLV_TRACE_H
#define CB_ALLTOALLV_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define CB_A2AV_TRACE_MAX_RANK 4095
#define CB_A2AV_TRACE_MAX_EXPERT (1 << 20)
#define CB_A2AV_TRACE_MAX_TOPK 256
#define CB_A2AV_TRACE_MAX_FILE (64u << 20)

typedef struct cb_a2av_trace {
  size_t ntokens;
  int max_rank, max_expert; /* the largest source rank and expert id named */
  int32_t *src;             /* [ntokens]: each token's source rank */
  size_t *first;            /* [ntokens + 1]: token t's experts are experts[first[t] .. first[t+1]) */
  int32_t *experts;
} cb_a2av_trace_t;

/* Parses text (NUL-terminated); name is the file's name for messages. 0 with *out (free with
 * cb_a2av_trace_free), or -1 with one line in err. */
int cb_a2av_trace_parse(const char *text, const char *name, cb_a2av_trace_t *out, char *err, size_t n);
/* cb_readfile + cb_a2av_trace_parse. */
int cb_a2av_trace_read(const char *path, cb_a2av_trace_t *out, char *err, size_t n);
void cb_a2av_trace_free(cb_a2av_trace_t *t);

/* cnt[i * nranks + j] = tokens of rank i with at least one expert on rank j, `experts` split
 * evenly over nranks (the caller checked max_rank < nranks, max_expert < experts and that
 * nranks divides experts). */
void cb_a2av_trace_counts(const cb_a2av_trace_t *t, int experts, int nranks, double *cnt);

#endif

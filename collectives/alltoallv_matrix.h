/* The alltoallv traffic matrix (--counts matrix:FILE), in nccl-tests' matrix-file format
 * (src/alltoallv.cu, NCCL_TESTS_ALLTOALLV_MATRIX_FILE): whitespace-separated byte counts, one
 * row per line, cell [i][j] the bytes rank i sends to rank j; blank lines are skipped. It must
 * be square; check_ranks then holds its side to the rank count (nccl-tests takes a larger matrix
 * and uses its leading block: collbench refuses it rather than drop rows without a word).
 *
 * Stricter than nccl-tests, which reads each value with strtod: a value is decimal digits only
 * (no sign, fraction, exponent, hex, "inf"), at most CB_MAX_BUFFER_BYTES (family.h), and no
 * rank's send or receive total may pass CB_MAX_BUFFER_BYTES either. As nccl-tests, each value is
 * used rounded down to a multiple of 16 bytes (alltoallv_counts.h). The file itself is read by
 * base/readfile.h (regular file, no symlink, size cap, UTF-8 without NUL). */
#ifndef CB_ALLTOALLV_MATRIX_H
#define CB_ALLTOALLV_MATRIX_H

#include <stddef.h>
#include <stdint.h>

/* The largest side accepted (ranks), and the largest file read. */
#define CB_A2AV_MATRIX_MAX_DIM 4096
#define CB_A2AV_MATRIX_MAX_FILE (64u << 20)

typedef struct cb_a2av_matrix {
  int dim;
  uint64_t *bytes; /* [dim][dim], as written in the file */
} cb_a2av_matrix_t;

/* Parses text (NUL-terminated); `name` is the file's name for messages. Returns 0 with *out
 * (free with cb_a2av_matrix_free), or -1 with one line in err naming the file, the row and the
 * column. */
int cb_a2av_matrix_parse(const char *text, const char *name, cb_a2av_matrix_t *out, char *err, size_t n);
/* cb_readfile + cb_a2av_matrix_parse. */
int cb_a2av_matrix_read(const char *path, cb_a2av_matrix_t *out, char *err, size_t n);
void cb_a2av_matrix_free(cb_a2av_matrix_t *m);

#endif

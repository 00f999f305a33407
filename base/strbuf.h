/* A growable string for building CSV lines, JSON objects and messages without fixed limits. */
#ifndef CB_STRBUF_H
#define CB_STRBUF_H

#include <stddef.h>

#include "text.h" /* cb_utf8_seq_len, cb_utf8_prefix */

typedef struct cb_strbuf {
  char *s;
  size_t len, cap;
} cb_strbuf_t;

void cb_sb_init(cb_strbuf_t *b);
void cb_sb_free(cb_strbuf_t *b);
void cb_sb_clear(cb_strbuf_t *b);
void cb_sb_printf(cb_strbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal (quotes included; control characters escaped). The
 * result is always valid UTF-8: each byte that does not start a valid UTF-8 sequence (host
 * names, notes, command lines and NCCL_* values are arbitrary bytes) becomes \ufffd. */
void cb_sb_json_str(cb_strbuf_t *b, const char *s);
/* Appends s as one CSV field (RFC 4180: quoted when it holds a comma, quote or newline);
 * invalid UTF-8 becomes U+FFFD, as in cb_sb_json_str. */
void cb_sb_csv_field(cb_strbuf_t *b, const char *s);

#endif

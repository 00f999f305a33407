/* Text encodings that need nothing but libc (collbench-topo links them without MPI): UTF-8
 * validity and the JSON string literal every writer of the tree uses (strbuf.h's
 * cb_sb_json_str, collbench-topo's --json). */
#ifndef CB_TEXT_H
#define CB_TEXT_H

#include <stddef.h>

/* Length (1..4) of the valid UTF-8 sequence at p, or 0 when the bytes there are not one
 * (stray continuation byte, overlong form, surrogate, past U+10FFFF, cut short). */
size_t cb_utf8_seq_len(const char *p);
/* The longest prefix of s, at most max bytes, that does not end inside a UTF-8 sequence:
 * where to cut a string that must be shortened. */
size_t cb_utf8_prefix(const char *s, size_t max);

/* Where cb_json_str_to puts its bytes (n bytes at p, not NUL-terminated). */
typedef void (*cb_text_sink_fn)(void *ctx, const char *p, size_t n);
/* Writes s (NULL: "") as a JSON string literal, quotes included: '"', '\\' and control
 * characters escaped, every byte that does not start a valid UTF-8 sequence written as \ufffd,
 * so the result is valid UTF-8 JSON whatever the bytes of s. */
void cb_json_str_to(const char *s, cb_text_sink_fn put, void *ctx);

#endif

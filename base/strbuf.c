/* Implementation of strbuf.h. Allocation failure ends the job: there is no sensible way to
 * report results without memory. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

void cb_sb_init(cb_strbuf_t *b) {
  b->cap = 256;
  b->len = 0;
  b->s = malloc(b->cap);
  if (!b->s) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  b->s[0] = 0;
}

void cb_sb_free(cb_strbuf_t *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}

void cb_sb_clear(cb_strbuf_t *b) {
  b->len = 0;
  b->s[0] = 0;
}

static void reserve(cb_strbuf_t *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap * 2;
  while (cap < b->len + extra + 1) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  b->s = s;
  b->cap = cap;
}

void cb_sb_printf(cb_strbuf_t *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

static void put_bytes(cb_strbuf_t *b, const char *p, size_t n) {
  reserve(b, n);
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = 0;
}

static void sink(void *ctx, const char *p, size_t n) { put_bytes(ctx, p, n); }

void cb_sb_json_str(cb_strbuf_t *b, const char *s) { cb_json_str_to(s, sink, b); }

/* One field's bytes with invalid UTF-8 replaced by U+FFFD (EF BF BD) and quotes doubled when
 * quoted. */
static void csv_bytes(cb_strbuf_t *b, const char *s, int quoted) {
  for (const char *p = s; *p;) {
    size_t n = cb_utf8_seq_len(p);
    if (!n) put_bytes(b, "\xef\xbf\xbd", 3);
    else if (quoted && *p == '"') put_bytes(b, "\"\"", 2);
    else put_bytes(b, p, n);
    p += n ? n : 1;
  }
}

void cb_sb_csv_field(cb_strbuf_t *b, const char *s) {
  if (!s) s = "";
  int quoted = strpbrk(s, ",\"\n\r") != NULL;
  if (quoted) put_bytes(b, "\"", 1);
  csv_bytes(b, s, quoted);
  if (quoted) put_bytes(b, "\"", 1);
}

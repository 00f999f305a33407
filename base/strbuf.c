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

void cb_sb_json_str(cb_strbuf_t *b, const char *s) {
  reserve(b, 2);
  b->s[b->len++] = '"';
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    switch (*p) {
    case '"': cb_sb_printf(b, "\\\""); break;
    case '\\': cb_sb_printf(b, "\\\\"); break;
    case '\n': cb_sb_printf(b, "\\n"); break;
    case '\r': cb_sb_printf(b, "\\r"); break;
    case '\t': cb_sb_printf(b, "\\t"); break;
    default:
      if (*p < 0x20) cb_sb_printf(b, "\\u%04x", *p);
      else {
        reserve(b, 1);
        b->s[b->len++] = (char)*p;
      }
    }
  }
  reserve(b, 1);
  b->s[b->len++] = '"';
  b->s[b->len] = 0;
}

void cb_sb_csv_field(cb_strbuf_t *b, const char *s) {
  if (!s) s = "";
  if (!strpbrk(s, ",\"\n\r")) {
    cb_sb_printf(b, "%s", s);
    return;
  }
  cb_sb_printf(b, "\"");
  for (const char *p = s; *p; p++) {
    if (*p == '"') cb_sb_printf(b, "\"\"");
    else cb_sb_printf(b, "%c", *p);
  }
  cb_sb_printf(b, "\"");
}

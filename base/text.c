/* Implementation of text.h (moved here from strbuf.c so that code without MPI can use it). */
#include "text.h"

#include <stdio.h>

size_t cb_utf8_seq_len(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  if (p[0] < 0x80) return 1;
  size_t n;
  unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte (Unicode table 3-7) */
  if (p[0] >= 0xc2 && p[0] <= 0xdf) n = 2;
  else if (p[0] >= 0xe0 && p[0] <= 0xef) {
    n = 3;
    if (p[0] == 0xe0) lo = 0xa0;      /* no overlong forms */
    else if (p[0] == 0xed) hi = 0x9f; /* no surrogates */
  } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
    n = 4;
    if (p[0] == 0xf0) lo = 0x90;      /* no overlong forms */
    else if (p[0] == 0xf4) hi = 0x8f; /* nothing past U+10FFFF */
  } else return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < n; i++)
    if (p[i] < 0x80 || p[i] > 0xbf) return 0; /* also stops at the terminating NUL */
  return n;
}

size_t cb_utf8_prefix(const char *s, size_t max) {
  size_t i = 0;
  while (s[i]) {
    size_t n = cb_utf8_seq_len(s + i);
    if (!n) n = 1; /* an invalid byte stands alone: cutting after it splits nothing */
    if (i + n > max) break;
    i += n;
  }
  return i;
}

void cb_json_str_to(const char *s, cb_text_sink_fn put, void *ctx) {
  put(ctx, "\"", 1);
  for (const char *p = s ? s : ""; *p;) {
    unsigned char c = (unsigned char)*p;
    size_t n = cb_utf8_seq_len(p);
    char esc[8];
    switch (c) {
    case '"': put(ctx, "\\\"", 2); break;
    case '\\': put(ctx, "\\\\", 2); break;
    case '\n': put(ctx, "\\n", 2); break;
    case '\r': put(ctx, "\\r", 2); break;
    case '\t': put(ctx, "\\t", 2); break;
    default:
      if (c < 0x20) {
        snprintf(esc, sizeof esc, "\\u%04x", c);
        put(ctx, esc, 6);
      } else if (n) put(ctx, p, n);
      else put(ctx, "\\ufffd", 6);
    }
    p += n ? n : 1;
  }
  put(ctx, "\"", 1);
}

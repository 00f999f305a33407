/* Implementation of text_check.h: a recursive-descent JSON validator with a depth limit, a
 * code-point UTF-8 decoder and a CSV record state machine. */
#include "text_check.h"

#include <string.h>

/* Length of the UTF-8 character at s[i] (0 when invalid), decoding the code point. */
static size_t utf8_char(const unsigned char *s, size_t n, size_t i) {
  unsigned c = s[i], need, cp;
  if (c < 0x80) return 1;
  if ((c & 0xe0) == 0xc0) need = 1, cp = c & 0x1f;
  else if ((c & 0xf0) == 0xe0) need = 2, cp = c & 0x0f;
  else if ((c & 0xf8) == 0xf0) need = 3, cp = c & 0x07;
  else return 0;
  if (i + need >= n) return 0;
  for (unsigned k = 1; k <= need; k++) {
    if ((s[i + k] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i + k] & 0x3f);
  }
  static const unsigned min_cp[] = {0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return need + 1;
}

int cb_text_valid_utf8(const char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t k = utf8_char((const unsigned char *)s, n, i);
    if (!k) return 0;
    i += k;
  }
  return 1;
}

typedef struct json {
  const unsigned char *s;
  size_t n, i;
  int depth;
} json_t;

static void ws(json_t *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r')) j->i++;
}

static int lit(json_t *j, const char *word) {
  size_t k = strlen(word);
  if (j->n - j->i < k || memcmp(j->s + j->i, word, k)) return 0;
  j->i += k;
  return 1;
}

static int hex4(json_t *j, unsigned *v) {
  if (j->n - j->i < 4) return 0;
  *v = 0;
  for (int k = 0; k < 4; k++) {
    unsigned c = j->s[j->i++], d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return 0;
    *v = *v * 16 + d;
  }
  return 1;
}

static int string(json_t *j) {
  if (j->i >= j->n || j->s[j->i] != '"') return 0;
  j->i++;
  while (j->i < j->n) {
    unsigned c = j->s[j->i];
    if (c == '"') {
      j->i++;
      return 1;
    }
    if (c < 0x20) return 0;
    if (c == '\\') {
      if (++j->i >= j->n) return 0;
      c = j->s[j->i++];
      if (c == 'u') {
        unsigned v;
        if (!hex4(j, &v)) return 0;
        if (v >= 0xdc00 && v <= 0xdfff) return 0; /* lone low surrogate */
        if (v >= 0xd800 && v <= 0xdbff) {         /* a high surrogate needs its low half */
          unsigned lo;
          if (!lit(j, "\\u") || !hex4(j, &lo) || lo < 0xdc00 || lo > 0xdfff) return 0;
        }
      } else if (!strchr("\"\\/bfnrt", (int)c) || c == 0) {
        return 0;
      }
      continue;
    }
    size_t k = utf8_char(j->s, j->n, j->i);
    if (!k) return 0;
    j->i += k;
  }
  return 0;
}

static int digits(json_t *j) {
  size_t start = j->i;
  while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
  return j->i > start;
}

static int number(json_t *j) {
  if (j->i < j->n && j->s[j->i] == '-') j->i++;
  if (j->i < j->n && j->s[j->i] == '0') j->i++;
  else if (!digits(j)) return 0;
  if (j->i < j->n && j->s[j->i] == '.') {
    j->i++;
    if (!digits(j)) return 0;
  }
  if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
    j->i++;
    if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
    if (!digits(j)) return 0;
  }
  return 1;
}

static int value(json_t *j);

static int members(json_t *j, char close, int keyed) {
  if (++j->depth > 64) return 0;
  j->i++;
  ws(j);
  if (j->i < j->n && j->s[j->i] == (unsigned char)close) {
    j->i++;
    j->depth--;
    return 1;
  }
  for (;;) {
    ws(j);
    if (keyed) {
      if (!string(j)) return 0;
      ws(j);
      if (j->i >= j->n || j->s[j->i++] != ':') return 0;
    }
    if (!value(j)) return 0;
    ws(j);
    if (j->i >= j->n) return 0;
    unsigned char c = j->s[j->i++];
    if (c == (unsigned char)close) break;
    if (c != ',') return 0;
  }
  j->depth--;
  return 1;
}

static int value(json_t *j) {
  ws(j);
  if (j->i >= j->n) return 0;
  switch (j->s[j->i]) {
  case '{': return members(j, '}', 1);
  case '[': return members(j, ']', 0);
  case '"': return string(j);
  case 't': return lit(j, "true");
  case 'f': return lit(j, "false");
  case 'n': return lit(j, "null");
  default: return number(j);
  }
}

int cb_text_valid_json(const char *s, size_t n) {
  json_t j = {(const unsigned char *)s, n, 0, 0};
  if (!value(&j)) return 0;
  ws(&j);
  return j.i == n;
}

int cb_text_csv_fields(const char *s, size_t n, int field, char *out, size_t cap) {
  int count = 0;
  size_t i = 0, o = 0;
  if (out && cap) out[0] = 0;
  for (;;) {
    int mine = count == field;
    if (i < n && s[i] == '"') {
      for (i++;; i++) {
        if (i >= n) return -1;
        if (s[i] == '"') {
          if (i + 1 < n && s[i + 1] == '"') i++;
          else break;
        }
        if (mine && out && o + 1 < cap) out[o++] = s[i];
      }
      i++;
      if (i < n && s[i] != ',') return -1;
    } else {
      for (; i < n && s[i] != ','; i++) {
        if (s[i] == '"' || s[i] == '\n' || s[i] == '\r') return -1;
        if (mine && out && o + 1 < cap) out[o++] = s[i];
      }
    }
    if (mine && out && cap) out[o] = 0;
    count++;
    if (i >= n) return count;
    i++; /* the comma */
  }
}

/* Independent checkers the tests and fuzz targets use to judge text collbench wrote: a strict JSON
 * validator (RFC 8259 grammar, strict UTF-8, no trailing bytes), a UTF-8 validator, and an
 * RFC 4180 CSV record splitter. Written apart from base/strbuf.c on purpose: a writer's
 * output is checked by code that does not share its assumptions. */
#ifndef CB_TEXT_CHECK_H
#define CB_TEXT_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* A fuzz target's failed check: one line on stderr, then abort() so libFuzzer keeps the input. */
#define CB_FUZZ_FAIL(target, ...)             \
  do {                                        \
    fprintf(stderr, target ": " __VA_ARGS__); \
    fprintf(stderr, "\n");                    \
    abort();                                  \
  } while (0)

/* 1 when s[0..n) is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
int cb_text_valid_utf8(const char *s, size_t n);

/* 1 when s[0..n) is exactly one JSON value (surrounding whitespace allowed), strict UTF-8. */
int cb_text_valid_json(const char *s, size_t n);

/* Splits one CSV record (no line terminator at its end; quoted fields may hold newlines).
 * Returns the number of fields, or -1 when the record is malformed (a quote inside an unquoted
 * field, text after a closing quote, an unterminated quote). When field >= 0, the unquoted text
 * of that field is copied to out (at most cap - 1 bytes, NUL-terminated). */
int cb_text_csv_fields(const char *s, size_t n, int field, char *out, size_t cap);

#endif

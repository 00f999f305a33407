/* libFuzzer target: the JSON and CSV writers (base/strbuf.c, launcher/report.c) on any
 * bytes in the text fields a run records (note, GPU name, algorithm, model, routing, host
 * names, the command line). Input: the fields separated by NUL bytes, in the order of `slots`
 * below; missing ones are empty. Every row must give one valid JSON object (strict UTF-8), a
 * CSV line of exactly the header's column count, valid UTF-8, whose text fields read back as
 * written (invalid UTF-8 replaced by U+FFFD); a string literal must be valid JSON alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "strbuf.h"
#include "text_check.h"

#define FAIL(...) CB_FUZZ_FAIL("fuzz_writers", __VA_ARGS__)

/* The text the writers should produce for s: invalid UTF-8 bytes as U+FFFD. */
static void expected_text(const char *s, cb_strbuf_t *out) {
  for (const char *p = s; *p;) {
    size_t n = cb_utf8_seq_len(p);
    if (n) cb_sb_printf(out, "%.*s", (int)n, p);
    else cb_sb_printf(out, "\xef\xbf\xbd");
    p += n ? n : 1;
  }
}

static int header_columns(void) {
  cb_strbuf_t h;
  cb_sb_init(&h);
  cb_csv_header(&h);
  int n = 1;
  for (const char *c = h.s; *c; c++) n += *c == ',';
  cb_sb_free(&h);
  return n;
}

/* CSV field `col` of line must read back as the writer's expected text of `in`. */
static void check_csv_field(const cb_strbuf_t *line, int col, const char *name, const char *in) {
  static char got[1 << 16];
  cb_strbuf_t want;
  cb_sb_init(&want);
  expected_text(in, &want);
  cb_text_csv_fields(line->s, line->len, col, got, sizeof got);
  if (want.len < sizeof got && strcmp(got, want.s) != 0)
    FAIL("CSV column %s reads back as '%s', expected '%s'", name, got, want.s);
  cb_sb_free(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  enum { NOTE, GPU, ALGO, MODEL, ROUTING, HOST, CMDLINE, FAMILY, NSLOTS };
  char *copy = malloc(size + 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  copy[size] = 0;
  const char *slots[NSLOTS];
  const char *p = copy, *end = copy + size;
  for (int i = 0; i < NSLOTS; i++) {
    slots[i] = p <= end ? p : "";
    p += strlen(slots[i]) + 1;
  }

  cb_row_t row;
  memset(&row, 0, sizeof row);
  row.family = slots[FAMILY][0] ? slots[FAMILY] : "allreduce";
  row.algo = slots[ALGO];
  row.dtype = "bfloat16";
  row.op = "sum";
  row.gpu = slots[GPU];
  row.mode = "eager";
  row.bytes = 1u << 20;
  row.count = row.bytes / 2;
  row.timed = size % 2;
  row.time_us_mean = row.time_us_max = row.time_us_p50 = row.time_us_p99 = 12.5;
  row.algbw_gbs = row.busbw_gbs = 80.0;
  row.wrong = (long long)(size % 3) - 1;
  snprintf(row.note, sizeof row.note, "%s", slots[NOTE]);
  row.note[cb_utf8_prefix(row.note, sizeof row.note - 1)] = 0; /* as a caller cutting a note should */
  row.groups = size % 5 == 0 ? CB_COLS_MOE : 0;
  cb_row_text(&row, CB_COL_MODEL, slots[MODEL]);
  cb_row_text(&row, CB_COL_ROUTING, slots[ROUTING]);
  cb_row_text(&row, CB_COL_PHASE, "dispatch");
  cb_row_real(&row, CB_COL_REMOTE_GBS, 1.0);
  cb_row_real(&row, CB_COL_IMBALANCE, 1.25);

  cb_strbuf_t b;
  cb_sb_init(&b);
  cb_row_json(&row, &b);
  if (!cb_text_valid_json(b.s, b.len)) FAIL("row JSON is not valid JSON: %s", b.s);

  cb_sb_clear(&b);
  cb_row_csv(&row, &b);
  if (!cb_text_valid_utf8(b.s, b.len)) FAIL("CSV line is not valid UTF-8");
  int fields = cb_text_csv_fields(b.s, b.len, -1, NULL, 0);
  if (fields != header_columns()) FAIL("CSV line has %d fields, the header %d: %s", fields, header_columns(), b.s);
  check_csv_field(&b, 0, "family", row.family);
  check_csv_field(&b, 1, "algo", row.algo);
  check_csv_field(&b, 9, "gpu", row.gpu);
  check_csv_field(&b, 17, "note", row.note);
  if (row.groups) {
    check_csv_field(&b, 21, "model", slots[MODEL]);
    check_csv_field(&b, 26, "routing", slots[ROUTING]);
  }

  /* metadata strings: host names and the command line as JSON string literals */
  for (int s = HOST; s <= CMDLINE; s++) {
    cb_sb_clear(&b);
    cb_sb_json_str(&b, slots[s]);
    if (!cb_text_valid_json(b.s, b.len)) FAIL("JSON string literal is not valid JSON: %s", b.s);
  }
  cb_sb_free(&b);
  free(copy);
  return 0;
}

/* CPU test of the JSON and CSV string writers (launcher/strbuf.c) on hostile bytes: whatever a
 * note, host name, command line or NCCL_* value holds, the JSON string literal and the CSV
 * field must be valid UTF-8, valid UTF-8 must pass through unchanged, and a string cut to fit
 * a buffer must not end inside a character. The output is judged by tests/lib/text_check.c, written
 * independently of strbuf.c (a code-point decoder and a JSON grammar, not strbuf's byte table). */
#include <stdint.h>
#include <stdlib.h>

#include "cb_testing.h"
#include "strbuf.h"
#include "text_check.h"

static void check_json_of(const char *in, const char *want) {
  cb_strbuf_t b;
  cb_sb_init(&b);
  cb_sb_json_str(&b, in);
  CHECK(cb_text_valid_json(b.s, b.len), "JSON of '%s' is not one valid JSON string: %s", in, b.s);
  if (want) CHECK_EQ_STR(b.s, want);
  cb_sb_free(&b);
}

static void check_csv_of(const char *in, const char *want) {
  cb_strbuf_t b;
  cb_sb_init(&b);
  cb_sb_csv_field(&b, in);
  CHECK(cb_text_valid_utf8(b.s, b.len), "CSV of '%s' is not valid UTF-8", in);
  CHECK(cb_text_csv_fields(b.s, b.len, -1, NULL, 0) == 1, "CSV of '%s' is not one field: %s", in, b.s);
  if (want) CHECK_EQ_STR(b.s, want);
  cb_sb_free(&b);
}

static void test_known(void) {
  check_json_of("h\xc3\xa9llo \xe2\x82\xac \xf0\x9d\x84\x9e", "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9d\x84\x9e\"");
  check_json_of("a\xff"
                "b",
                "\"a\\ufffdb\"");
  check_json_of("cut \xe2\x82", "\"cut \\ufffd\\ufffd\"");
  check_json_of("\xc0\xaf", "\"\\ufffd\\ufffd\"");                       /* overlong '/' */
  check_json_of("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");            /* surrogate U+D800 */
  check_json_of("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
  check_json_of("q\"\\\n\x01", "\"q\\\"\\\\\\n\\u0001\"");
  check_csv_of("plain", "plain");
  check_csv_of("a\xff,b", "\"a\xef\xbf\xbd,b\"");
  check_csv_of("x\"y\xe2\x82", "\"x\"\"y\xef\xbf\xbd\xef\xbf\xbd\"");
  check_csv_of("\xe2\x82\xac", "\xe2\x82\xac");
}

static void test_prefix(void) {
  const char *s = "ab\xe2\x82\xac"
                  "c"; /* a b EURO c: 6 bytes */
  CHECK_EQ_INT(cb_utf8_prefix(s, 2), 2);
  CHECK_EQ_INT(cb_utf8_prefix(s, 3), 2);
  CHECK_EQ_INT(cb_utf8_prefix(s, 4), 2);
  CHECK_EQ_INT(cb_utf8_prefix(s, 5), 5);
  CHECK_EQ_INT(cb_utf8_prefix(s, 100), 6);
  CHECK_EQ_INT(cb_utf8_prefix("\xff\xfe", 1), 1);
}

/* Random bytes (seeded), ASCII-heavy and high-byte-heavy: always valid UTF-8 out. */
static void test_random(void) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  char in[64];
  for (int round = 0; round < 20000; round++) {
    size_t n = (size_t)(round % 63);
    for (size_t i = 0; i < n; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      in[i] = (char)(round & 1 ? 0x80 | (x & 0x7f) : (x & 0xff));
      if (!in[i]) in[i] = 'z';
    }
    in[n] = 0;
    check_json_of(in, NULL);
    check_csv_of(in, NULL);
    size_t cut = cb_utf8_prefix(in, n / 2);
    CHECK(cut <= n / 2, "prefix %zu > %zu", cut, n / 2);
  }
}

int main(void) {
  test_known();
  test_prefix();
  test_random();
  return cb_test_finish("test_strbuf");
}

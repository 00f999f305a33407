/* base/decimal.h, the one number grammar of the command lines and knobs: ASCII decimal digits
 * only. Python's int() and float() take Unicode digits ('٨' is 8, '８' too), '1_000', ' 8' and
 * 'inf' (issue 42 P26); strtol and strtod in another locale could take more: every such
 * spelling is refused here, as plots/infile.py's decimal() refuses it. */
#include "cb_testing.h"
#include "decimal.h"

int main(void) {
  static const char *bad[] = {"\xd9\xa8", "1\xd9\xa8", "\xef\xbc\x98", "\xe2\x82\x88", "\xc2\xb2", "1_000",
                              " 8",       "8 ",        "+8",           "0x8",          "inf",      "nan",
                              "",         "-",         "1e",           "1e999",        "8\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    long l = 7;
    double d = 7;
    CHECK(cb_decimal_long(bad[i], -100000, 100000, &l) == -1 && l == 7, "integer '%s' accepted as %ld", bad[i], l);
    CHECK(cb_decimal_real(bad[i], &d) == -1 && d == 7, "real '%s' accepted as %g", bad[i], d);
  }
  long l = 0;
  double d = 0;
  CHECK(cb_decimal_long("-42", -100, 100, &l) == 0 && l == -42, "-42");
  CHECK(cb_decimal_real("1.5e3", &d) == 0 && d == 1500, "1.5e3");
  CHECK(cb_decimal_real(".5", &d) == 0 && d == 0.5, ".5");
  return cb_test_finish("decimal");
}

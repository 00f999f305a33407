/* Whole-string decimal numbers, the one spelling every number of the command lines and knobs
 * takes: an optional '-', digits and, for reals, an optional fraction and exponent
 * ("2", "1.5", "-0.25", "1e3", ".5"). strtol and strtod alone also take leading blanks, '+',
 * hex ("0x2"), "inf" and "nan": these are refused here. Plain libc. */
#ifndef CB_DECIMAL_H
#define CB_DECIMAL_H

/* 0 with *out, or -1 when s is not a decimal integer in [lo, hi]. */
int cb_decimal_long(const char *s, long lo, long hi, long *out);
/* 0 with *out, or -1 when s is not a decimal real number or is not finite (overflow). */
int cb_decimal_real(const char *s, double *out);

#endif

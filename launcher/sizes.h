/* Message sizes: parsing "8", "64K", "1M", "8G" (powers of 1024, as nccl-tests), printing them
 * back ("1 KiB"), and expanding -b/-e/-f/-i into the list of sweep points. */
#ifndef CB_SIZES_H
#define CB_SIZES_H

#include <stddef.h>
#include <stdint.h>

#define CB_MAX_SWEEP_POINTS 4096

/* Digits with an optional K/M/G/T suffix (case-insensitive, optional trailing "B" or "iB").
 * Returns 0, or -1 for anything else (empty, sign, fraction, junk, overflow). */
int cb_parse_size(const char *s, uint64_t *out);

/* "8 B", "4 KiB", "1.5 MiB": exact binary units when they divide, one decimal otherwise. */
void cb_format_size(uint64_t bytes, char *buf, size_t n);

/* Geometric (factor > 1, step 0) or arithmetic (step > 0, factor 0) sweep from min to max,
 * inclusive of both ends when reachable. Returns the number of points written to out (at most
 * cap), or -1 with why set (min > max, both or neither of factor/step, too many points). */
int cb_sweep(uint64_t min, uint64_t max, double factor, uint64_t step, uint64_t *out, int cap, char *why, size_t n);

#endif

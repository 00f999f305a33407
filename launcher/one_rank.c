/* Implementation of one_rank.h. */
#include "one_rank.h"

#include <string.h>

#include "family.h"

int cb_one_rank_zero_busbw(const char *family, int ranks) {
  cb_family_t f;
  return ranks == 1 && family && cb_family_parse(family, &f) == 0 && cb_busbw_factor(f, 1) == 0.0;
}

cb_row_t cb_one_rank_row(const cb_row_t *in, FILE *say) {
  cb_row_t out = *in;
  if (!cb_one_rank_zero_busbw(in->family, in->ranks)) return out;
  if (say) fprintf(say, "%s\n", CB_ONE_RANK_LINE);
  if (!in->timed) return out; /* a skipped row's note says why it did not run */
  size_t used = strlen(out.note);
  snprintf(out.note + used, sizeof out.note - used, "%s%s", used ? "; " : "", CB_ONE_RANK_NOTE);
  return out;
}

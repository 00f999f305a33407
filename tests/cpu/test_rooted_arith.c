/* The arithmetic of the rooted families and hypercube as a row shows it, for
 * check_rooted_anchors.py to compare with real nccl-tests tables: for each SIZE:TIME_US the
 * family's plan() (the describer as the engine calls it: root 0) gives the size and count columns,
 * and the family's algbw bytes and busbw factor (family.h) give algbw and busbw at that time.
 *
 * usage: test_rooted_arith FAMILY NRANKS DTYPE SIZE:TIME_US...
 * prints one line per size: "bytes count algbw_gbs busbw_gbs" (the plan's refusal: "refused WHY") */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "family.h"
#include "params.h"

int main(int argc, char **argv) {
  cb_family_t f;
  cb_dtype_t t;
  if (argc < 5 || cb_family_parse(argv[1], &f) || cb_dtype_parse(argv[3], &t)) {
    fprintf(stderr, "usage: test_rooted_arith FAMILY NRANKS DTYPE SIZE:TIME_US...\n");
    return 2;
  }
  int n = atoi(argv[2]);
  const cb_family_info_t *fi = cb_family_info(f);
  cb_args_t a;
  memset(&a, 0, sizeof a);
  a.family = f;
  if (fi->defaults) fi->defaults(cb_args_config(&a));
  for (int i = 4; i < argc; i++) {
    unsigned long long size;
    double us;
    if (sscanf(argv[i], "%llu:%lf", &size, &us) != 2 || us <= 0) {
      fprintf(stderr, "test_rooted_arith: bad SIZE:TIME_US '%s'\n", argv[i]);
      return 2;
    }
    cb_params_t p;
    memset(&p, 0, sizeof p);
    p.family = f;
    p.dtype = t;
    p.op = fi->reduces ? CB_SUM : CB_OP_NONE;
    p.point = size;
    p.config = cb_args_config_const(&a);
    char what[256], why[256] = "";
    /* a refused plan still sets the size columns (a chunk rounded to 0: nccl-tests' 0, 0 row) */
    if (fi->plan(&p, n, "eager", what, sizeof what, why, sizeof why) && !strstr(why, "round to 0 per rank")) {
      printf("refused %s\n", why);
      continue;
    }
    double algbw = cb_family_algbw_bytes(f, p.bytes, n) / us / 1e3; /* B/us/1e3 = GB/s */
    printf("%llu %zu %.6f %.6f\n", (unsigned long long)p.bytes, p.count, algbw, algbw * cb_busbw_factor(f, n));
  }
  return 0;
}

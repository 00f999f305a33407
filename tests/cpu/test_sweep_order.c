/* --order (launcher/sweep_order.c): both orders visit every step once; sizes keeps collbench's
 * nesting (cycle > size > type > op > placement > variant); types walks nccl-tests' lines, held
 * to the real `all_reduce_perf -d all -o all` output (ARGV[1], all_reduce-g1-all.txt): its
 * types, ops and sizes in order of appearance, walked in the types order, give its rows in its
 * order (out-of-place and in-place on one line there: the placement loop is innermost here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "sweep_order.h"

#define MAXN 64

/* Each step visited once: the steps' indexes read as one number cover 0..n-1. */
static void check_covers(int order, const int count[CB_NDIMS]) {
  const long long n = cb_sweep_steps(count);
  char *seen = calloc((size_t)n, 1);
  for (long long i = 0; i < n; i++) {
    cb_sweep_step_t st;
    cb_sweep_step(order, count, i, &st);
    long long key = 0;
    for (int d = 0; d < CB_NDIMS; d++) {
      CHECK(st.at[d] >= 0 && st.at[d] < count[d], "dim %d index %d of %d", d, st.at[d], count[d]);
      key = key * count[d] + st.at[d];
    }
    CHECK(!seen[key], "order %d step %lld visits a step twice", order, i);
    seen[key] = 1;
  }
  free(seen);
}

/* The sizes order is the old nested loops, step for step. */
static void check_sizes(const int c[CB_NDIMS]) {
  long long i = 0;
  for (int cy = 0; cy < c[CB_DIM_CYCLE]; cy++)
    for (int pt = 0; pt < c[CB_DIM_POINT]; pt++)
      for (int d = 0; d < c[CB_DIM_DTYPE]; d++)
        for (int o = 0; o < c[CB_DIM_OP]; o++)
          for (int pl = 0; pl < c[CB_DIM_PLACE]; pl++)
            for (int v = 0; v < c[CB_DIM_VARIANT]; v++, i++) {
              cb_sweep_step_t st;
              cb_sweep_step(CB_ORDER_SIZES, c, i, &st);
              CHECK(st.at[CB_DIM_CYCLE] == cy && st.at[CB_DIM_POINT] == pt && st.at[CB_DIM_DTYPE] == d &&
                        st.at[CB_DIM_OP] == o && st.at[CB_DIM_PLACE] == pl && st.at[CB_DIM_VARIANT] == v,
                    "sizes step %lld", i);
            }
}

static int index_of(char names[][16], int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (strcmp(names[i], name) == 0) return i;
  if (*n == MAXN) return -1;
  snprintf(names[*n], 16, "%s", name);
  return (*n)++;
}

/* The anchor's rows against the types order. */
static void check_anchor(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot open %s", path);
  if (!f) return;
  static char types[MAXN][16], ops[MAXN][16];
  static unsigned long long sizes[MAXN];
  static int row_t[4096], row_o[4096], row_s[4096];
  int nt = 0, no = 0, ns = 0, nrows = 0;
  char line[512];
  while (fgets(line, sizeof line, f) && nrows < 4096) {
    unsigned long long size, count;
    char type[16], op[16];
    if (line[0] != ' ' || sscanf(line, "%llu %llu %15s %15s", &size, &count, type, op) != 4) continue;
    int s = 0;
    while (s < ns && sizes[s] != size) s++;
    if (s == ns && ns < MAXN) sizes[ns++] = size;
    row_t[nrows] = index_of(types, &nt, type);
    row_o[nrows] = index_of(ops, &no, op);
    row_s[nrows++] = s;
  }
  fclose(f);
  CHECK(nrows > 100 && nt >= 5 && no == 6 && ns == 6, "%s: %d rows, %d types, %d ops, %d sizes", path, nrows, nt, no,
        ns);
  const int c[CB_NDIMS] = {[CB_DIM_CYCLE] = 1, [CB_DIM_POINT] = ns, [CB_DIM_DTYPE] = nt,
                           [CB_DIM_OP] = no,   [CB_DIM_PLACE] = 1,  [CB_DIM_VARIANT] = 1};
  for (int i = 0; i < nrows; i++) {
    cb_sweep_step_t st;
    cb_sweep_step(CB_ORDER_TYPES, c, i, &st);
    CHECK(st.at[CB_DIM_DTYPE] == row_t[i] && st.at[CB_DIM_OP] == row_o[i] && st.at[CB_DIM_POINT] == row_s[i],
          "row %d: nccl-tests prints %s %s %llu, the types order gives %s %s %llu", i, types[row_t[i]], ops[row_o[i]],
          sizes[row_s[i]], types[st.at[CB_DIM_DTYPE]], ops[st.at[CB_DIM_OP]], sizes[st.at[CB_DIM_POINT]]);
  }
  /* the sizes order would not: its second row is the first size's next op */
  cb_sweep_step_t st;
  cb_sweep_step(CB_ORDER_SIZES, c, 1, &st);
  CHECK(st.at[CB_DIM_POINT] != row_s[1] || st.at[CB_DIM_OP] != row_o[1], "the sizes order matches nccl-tests too");
}

int main(int argc, char **argv) {
  int order = -1;
  CHECK(cb_sweep_order_parse("sizes", &order) == 0 && order == CB_ORDER_SIZES, "sizes");
  CHECK(cb_sweep_order_parse("types", &order) == 0 && order == CB_ORDER_TYPES, "types");
  CHECK(cb_sweep_order_parse("size", &order) == -1 && cb_sweep_order_parse("", &order) == -1, "bad names refused");
  CHECK(strcmp(cb_sweep_order_name(CB_ORDER_TYPES), "types") == 0, "name");
  const int c[CB_NDIMS] = {[CB_DIM_CYCLE] = 2, [CB_DIM_POINT] = 3, [CB_DIM_DTYPE] = 4,
                           [CB_DIM_OP] = 2,    [CB_DIM_PLACE] = 2, [CB_DIM_VARIANT] = 3};
  CHECK(cb_sweep_steps(c) == 288, "steps %lld", cb_sweep_steps(c));
  check_covers(CB_ORDER_SIZES, c);
  check_covers(CB_ORDER_TYPES, c);
  check_sizes(c);
  /* types: type > op > variant (root) > cycle > size > placement */
  long long i = 0;
  for (int d = 0; d < 4; d++)
    for (int o = 0; o < 2; o++)
      for (int v = 0; v < 3; v++)
        for (int cy = 0; cy < 2; cy++)
          for (int pt = 0; pt < 3; pt++)
            for (int pl = 0; pl < 2; pl++, i++) {
              cb_sweep_step_t st;
              cb_sweep_step(CB_ORDER_TYPES, c, i, &st);
              CHECK(st.at[CB_DIM_DTYPE] == d && st.at[CB_DIM_OP] == o && st.at[CB_DIM_VARIANT] == v &&
                        st.at[CB_DIM_CYCLE] == cy && st.at[CB_DIM_POINT] == pt && st.at[CB_DIM_PLACE] == pl,
                    "types step %lld", i);
            }
  if (argc > 1) check_anchor(argv[1]);
  else CHECK(0, "usage: test_sweep_order ANCHOR (all_reduce-g1-all.txt)");
  return cb_test_finish("test_sweep_order");
}

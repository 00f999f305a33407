/* The alltoallv family's command line against hostile input found in review (issue 42's method
 * on issue 43's surface): file names with control characters, spread:-0, a matrix whose values
 * all round down to 0 B. Each is refused with one line, or written as the number it is, before
 * any GPU work (cb_args_parse reads the files). The arguments are passed as argv, not split on
 * blanks, so a line break can sit inside one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alltoallv_counts.h"
#include "args.h"
#include "cb_testing.h"
#include "newfile.h"

static char dir[512];
static cb_args_t a;

static void put(const char *name, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = cb_newfile_replace(path);
  if (!f || fputs(text, f) < 0 || fclose(f)) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

/* collbench alltoallv --counts MODE [-b SIZE -e SIZE]; the family's files released */
static int parse(const char *mode, const char *size, char *err, size_t n) {
  char *argv[8] = {"collbench", "alltoallv", "--counts", (char *)mode, NULL};
  int argc = 4;
  if (size) {
    argv[argc++] = "-b";
    argv[argc++] = (char *)size;
    argv[argc++] = "-e";
    argv[argc++] = (char *)size;
  }
  err[0] = 0;
  int rc = cb_args_parse(argc, argv, &a, err, n);
  if (rc == CB_ARGS_OK) cb_a2av_config_release(cb_args_config(&a));
  return rc;
}

/* a name with a line break (the file exists) split the error line and the rows' counts column */
static void test_control_characters(void) {
  char err[1024], mode[1024];
  put("nl\nx", "16 32\n48 64\n");
  const char *names[] = {"nl\nx", "tab\tx", "esc\033x", "del\177x"};
  for (int i = 0; i < 4; i++)
    for (int trace = 0; trace < 2; trace++) {
      snprintf(mode, sizeof mode, "%s:%s/%s", trace ? "trace" : "matrix", dir, names[i]);
      CHECK(parse(mode, "112", err, sizeof err) == CB_ARGS_ERROR, "control character %d accepted in '%s'", i, mode);
      CHECK(strchr(err, '\n') == NULL, "the refusal of name %d is more than one line: '%s'", i, err);
      CHECK_CONTAINS(err, "file name holds a control character");
    }
  snprintf(mode, sizeof mode, "matrix:%s/plain name.txt", dir); /* a blank is an ordinary character */
  put("plain name.txt", "16 32\n48 64\n");
  CHECK(parse(mode, "112", err, sizeof err) == CB_ARGS_OK, "a name with a blank refused: %s", err);
}

/* spread:-0 is spread 0: the counts column must not say -0 */
static void test_negative_zero(void) {
  char err[256];
  const char *zeros[] = {"spread:-0", "spread:-0.0", "spread:-0e5"};
  for (int i = 0; i < 3; i++) {
    CHECK(parse(zeros[i], NULL, err, sizeof err) == CB_ARGS_OK, "%s: %s", zeros[i], err);
    CHECK_EQ_STR(((cb_a2av_config_t *)cb_args_config(&a))->text, "spread:0");
  }
}

/* values all below 16 B: no size moves a byte; the old line offered "-b 0 -e 0" */
static void test_matrix_all_below_16(void) {
  char err[1024], mode[1024];
  put("small.txt", "15 0\n0 15\n");
  snprintf(mode, sizeof mode, "matrix:%s/small.txt", dir);
  const char *sizes[] = {NULL, "0", "16", "1M"};
  for (int i = 0; i < 4; i++) {
    CHECK(parse(mode, sizes[i], err, sizeof err) == CB_ARGS_ERROR, "a matrix of 15 B cells accepted at size %s",
          sizes[i] ? sizes[i] : "(sweep)");
    CHECK_CONTAINS(err, "every value is below 16 B");
    CHECK(strstr(err, "-b 0") == NULL, "size %d: suggests -b 0: %s", i, err);
  }
  put("one16.txt", "15 16\n0 15\n"); /* one block of 16 B: a run */
  snprintf(mode, sizeof mode, "matrix:%s/one16.txt", dir);
  CHECK(parse(mode, "16", err, sizeof err) == CB_ARGS_OK, "a 16 B block refused: %s", err);
}

int main(int argc, char **argv) {
  snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "test_alltoallv_hostile.d");
  mkdir(dir, 0700);
  test_control_characters();
  test_negative_zero();
  test_matrix_all_below_16();
  return cb_test_finish("test_alltoallv_hostile");
}

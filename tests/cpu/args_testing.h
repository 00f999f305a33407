/* The command-line test helpers shared by test_args.c and test_args_ncclt.c: a line split at
 * spaces and parsed into the static A, and the checks that it parses or fails with a one-line
 * message naming given substrings. */
#ifndef CB_ARGS_TESTING_H
#define CB_ARGS_TESTING_H

#include <stdarg.h>
#include <string.h>

#include "args.h"
#include "cb_testing.h"

static cb_args_t A; /* large (sweep table): static, not on the stack */
static char err[1024];

/* Splits line at spaces into argv ("collbench" prepended) and parses it. The token '' stands
 * for an empty argument. */
static int parse(const char *line) {
  static char buf[8192];
  char *argv[256];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "collbench";
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && argc < 255; tok = strtok_r(NULL, " ", &save))
    argv[argc++] = strcmp(tok, "''") == 0 ? "" : tok;
  argv[argc] = NULL;
  memset(err, 0, sizeof err);
  return cb_args_parse(argc, argv, &A, err, sizeof err);
}

static void expect_ok_at(int line, const char *cmd) {
  int rc = parse(cmd);
  cb_test_checks++;
  if (rc != CB_ARGS_OK) {
    cb_test_failures++;
    fprintf(stderr, "FAIL %s:%d: '%s' returned %d (%s), expected OK\n", __FILE__, line, cmd, rc, err);
  }
}
#define EXPECT_OK(cmd) expect_ok_at(__LINE__, cmd)

/* cmd must fail with CB_ARGS_ERROR and a message holding every substring (NULL-terminated). */
static void expect_err_at(int line, const char *cmd, ...) {
  int rc = parse(cmd);
  cb_test_checks++;
  if (rc != CB_ARGS_ERROR) {
    cb_test_failures++;
    fprintf(stderr, "FAIL %s:%d: '%s' returned %d, expected CB_ARGS_ERROR\n", __FILE__, line, cmd, rc);
    return;
  }
  va_list ap;
  va_start(ap, cmd);
  for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *)) {
    cb_test_checks++;
    if (!strstr(err, s)) {
      cb_test_failures++;
      fprintf(stderr, "FAIL %s:%d: '%s': message \"%s\" does not name \"%s\"\n", __FILE__, line, cmd, err, s);
    }
  }
  va_end(ap);
  cb_test_checks++;
  if (strchr(err, '\n')) {
    cb_test_failures++;
    fprintf(stderr, "FAIL %s:%d: '%s': message is not one line: \"%s\"\n", __FILE__, line, cmd, err);
  }
}
#define EXPECT_ERR(cmd, ...) expect_err_at(__LINE__, cmd, __VA_ARGS__, (const char *)NULL)

#endif

/* libFuzzer target: the nccl-tests drop-in's command line (launcher/ncclt_args.c) and the
 * collbench command line it becomes (launcher/args.c). Input, one item per line: the program
 * name (argv[0]: a *_perf name or anything), then its arguments; a line "@NAME=VALUE" sets an
 * environment variable of the run instead (NCCL_TESTS_MIN_BW, CB_ALGO, NCCL_TESTS_DEVICE, ...).
 *
 * Beyond "no crash, no sanitizer report": a refusal is one non-empty line; an accepted line
 * gives collbench's argv NULL-terminated, starting "collbench FAMILY" with the binary's family,
 * a sweep with -b <= -e, -g within 1..1024 and its argument indexes inside argv, a gate that is
 * a number >= 0 or unset; and collbench's own parser either takes the translated line or refuses
 * it in one line that is not about what the drop-in itself wrote (-n, -w, -c: the same ranges). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "ncclt_args.h"
#include "text_check.h"

#define FAIL(...) CB_FUZZ_FAIL("fuzz_ncclt_args", __VA_ARGS__)

static cb_args_t A; /* large: static */
static cb_ncclt_opts_t O;
static char **g_env; /* "NAME=VALUE" lines of the input */
static int g_nenv;

static const char *fuzz_getenv(const char *name) {
  size_t len = strlen(name);
  for (int i = g_nenv - 1; i >= 0; i--)
    if (strncmp(g_env[i], name, len) == 0 && g_env[i][len] == '=') return g_env[i] + len + 1;
  return NULL;
}

static void check_accepted(int argc) {
  if (O.argc < 2 || O.argc > CB_NCCLT_MAX_OUT || O.argv[O.argc]) FAIL("argv of %d, not NULL-terminated", O.argc);
  if (strcmp(O.argv[0], "collbench") || strcmp(O.argv[1], O.bin->family))
    FAIL("argv starts '%s %s', binary %s", O.argv[0], O.argv[1], O.bin->name);
  if (O.minbytes > O.maxbytes)
    FAIL("sweep %llu > %llu accepted", (unsigned long long)O.minbytes, (unsigned long long)O.maxbytes);
  if (O.ngpus < 1 || O.ngpus > 1024) FAIL("-g %d accepted", O.ngpus);
  for (int k = 0; k < O.ngpus_args; k++)
    if (O.ngpus_at[k] < 1 || O.ngpus_at[k] >= argc) FAIL("-g argument index %d of %d", O.ngpus_at[k], argc);
  if (O.min_bw < 0 && O.min_bw != -1) FAIL("NCCL_TESTS_MIN_BW %g accepted", O.min_bw);
  char err[1024];
  int rc = cb_args_parse(O.argc, O.argv, &A, err, sizeof err);
  if (rc == CB_ARGS_ERROR) {
    if (!err[0] || strchr(err, '\n')) FAIL("collbench's refusal of the translation is not one line: '%s'", err);
    if (!strncmp(err, "-n:", 3) || !strncmp(err, "-w:", 3) || !strncmp(err, "-c:", 3))
      FAIL("collbench refuses what the drop-in wrote: %s", err);
  } else if (rc != CB_ARGS_OK) {
    FAIL("collbench's parser: result %d for the translation", rc);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 14) return 0;
  char *copy = malloc(size + 1);
  char **argv = malloc(sizeof(char *) * (size + 2));
  g_env = malloc(sizeof(char *) * (size + 2));
  if (!copy || !argv || !g_env) abort();
  memcpy(copy, data, size);
  copy[size] = 0;
  int argc = 0;
  g_nenv = 0;
  for (char *line = copy, *next; line && (size_t)(line - copy) <= size; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (!next && !*line) break; /* the last line's terminator */
    if (line[0] == '@') g_env[g_nenv++] = line + 1;
    else argv[argc++] = line;
  }
  argv[argc] = NULL;
  char err[1024];
  int rc = cb_ncclt_translate(argc, argv, fuzz_getenv, &O, err, sizeof err);
  if (rc == CB_NCCLT_ERROR && (!err[0] || strchr(err, '\n'))) FAIL("refusal empty or not one line: '%s'", err);
  if (rc == CB_NCCLT_ERROR && !cb_text_valid_utf8(err, strlen(err)) && cb_text_valid_utf8((char *)data, size))
    FAIL("refusal of UTF-8 input is not UTF-8: '%s'", err);
  if (rc != CB_NCCLT_OK && rc != CB_NCCLT_ERROR && rc != CB_NCCLT_HELP) FAIL("result %d", rc);
  if (rc == CB_NCCLT_OK) check_accepted(argc);
  if (rc == CB_NCCLT_HELP) {
    char usage[2048];
    cb_ncclt_usage(O.bin ? O.bin->name : "x", usage, sizeof usage);
    if (!strstr(usage, "USAGE:")) FAIL("usage without its USAGE line");
  }
  free(g_env);
  free(argv);
  free(copy);
  return 0;
}

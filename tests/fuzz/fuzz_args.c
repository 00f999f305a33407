/* libFuzzer target: the collbench command line (launcher/args.c) with everything it calls:
 * size lists and sweeps, K/M/G/T suffixes, the moe options (--tokens ranges, --routing laws,
 * --model presets, shapes). Input: the arguments after "collbench", one per line.
 *
 * Beyond "no crash, no sanitizer report", what the parser accepts must be runnable and what it
 * rejects must say why: an error is one non-empty line; an accepted classic run has sizes the
 * buffer planner takes for 1, 2 and 8 ranks (when they divide); an accepted moe run routes
 * tokens on the host (the configuration check and the router agree); the recorded command
 * line is valid JSON once written; every real number an accepted command holds (-f, -T, --drop,
 * a range's factor, --routing's S and F) was written in decimal (no hex, blank, '+', inf or nan:
 * issue 32 N21). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "buffers.h"
#include "gate.h"
#include "moe_router.h"
#include "rooted.h"
#include "strbuf.h"
#include "text_check.h"

#define FAIL(...) CB_FUZZ_FAIL("fuzz_args", __VA_ARGS__)

static cb_args_t A; /* large: static */
/* the moe configuration an accepted moe command holds (the family's own, family.h) */
#define MOE ((const cb_moe_config_t *)cb_args_config(&A))

static void check_classic(void) {
  static const int ranks[] = {1, 2, 8};
  for (int i = 0; i < A.npoints; i++) {
    if (A.points[i] > CB_MAX_BUFFER_BYTES) FAIL("accepted size %llu past 1 TiB", (unsigned long long)A.points[i]);
    for (int d = 0; d < A.ndtypes; d++)
      for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++) {
        cb_params_t p;
        memset(&p, 0, sizeof p);
        p.family = A.family;
        p.dtype = A.dtypes[d];
        p.point = A.points[i];
        p.config = cb_args_config_const(&A);
        char why[256], what[256];
        /* a family sweeping bytes: its plan, as the engine calls it (root 0 for the rooted
         * families); the others: the point as a byte count */
        const cb_family_info_t *fi = cb_family_info(A.family);
        p.bytes = p.point;
        if (fi->points ? cb_family_count(A.family, p.bytes, cb_dtype_size(p.dtype), ranks[r], &p.elements, &p.count,
                                         why, sizeof why)
                       : fi->plan(&p, ranks[r], "eager", what, sizeof what, why, sizeof why))
          continue; /* a row error (size not a whole number of elements): reported per row */
        for (int inplace = 0; inplace < 2; inplace++) {
          cb_buffer_plan_t plan;
          p.inplace = inplace;
          if (cb_plan_buffers(&p, ranks[r], ranks[r] - 1, &plan, why, sizeof why))
            FAIL("size %llu counted but not planned: %s", (unsigned long long)p.bytes, why);
          if (plan.recv_off + plan.recv_elems * cb_dtype_size(p.dtype) > plan.total_bytes ||
              plan.send_off + plan.send_elems * cb_dtype_size(p.dtype) > plan.total_bytes)
            FAIL("size %llu: buffers outside the %zu-byte allocation", (unsigned long long)p.bytes, plan.total_bytes);
        }
      }
  }
}

/* an accepted root (-r/--root) is a rank the describer can check, or -1 (every root) */
static void check_root(void) {
  const cb_family_info_t *fi = cb_family_info(A.family);
  if (!fi->rooted) return;
  int root = ((const cb_rooted_config_t *)cb_args_config(&A))->root;
  if (root < -1 || root >= CB_ROOTS_MAX) FAIL("accepted root %d", root);
  char why[256];
  for (int n = 1; n <= 8; n++)
    if ((fi->check_ranks(cb_args_config(&A), n, A.dtypes, A.ndtypes, why, sizeof why) == 0) != (root < n))
      FAIL("root %d at %d ranks: check_ranks '%s'", root, n, why);
}

static void check_moe(void) {
  for (int i = 0; i < A.npoints; i++)
    if (A.points[i] > (1u << 24)) FAIL("accepted %llu tokens", (unsigned long long)A.points[i]);
  if (MOE->experts > 4096) return; /* the host law costs O(experts) per token: keep inputs fast */
  static const int nranks[] = {1, 2, 8};
  for (size_t r = 0; r < sizeof nranks / sizeof nranks[0]; r++) {
    char why[256];
    if (cb_moe_config_check(MOE, nranks[r], A.dtypes[0], why, sizeof why)) continue;
    cb_moe_routing_t routing;
    if (cb_moe_route(MOE, A.seed, 0, nranks[r], 3, &routing))
      FAIL("configuration passed the check for %d ranks but routing failed (experts %d topk %d routing %d)", nranks[r],
           MOE->experts, MOE->topk, (int)MOE->routing.kind);
    cb_moe_routing_free(&routing);
  }
}

/* Whether one number's text is plain decimal as a person writes it (the property, not the
 * parser's code): digits, '.', '-', and e/E with its sign. */
static int decimal_text(const char *s, size_t n) {
  if (!n || s[0] == '+') return 0;
  for (size_t i = 0; i < n; i++)
    if (!strchr("0123456789.-+eE", s[i]) || !s[i]) return 0;
  return 1;
}

/* The real-valued parts of an accepted command's options: the whole of -f/-T/--drop, the parts
 * after the first ':' of --routing, the third part of a --tokens/--seq range. Options are walked
 * as args.c walks them (every option but the flags takes the next argument unless given inline). */
static void check_reals(int argc, char **argv) {
  static const char *const flags[] = {"--graph", "--no-bind", "--uneven", "--validate", "--overlap", "-h", "--help"};
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i], *val = NULL;
    char opt[40] = "";
    if (arg[0] != '-' || !arg[1]) continue;
    if (arg[1] == '-') {
      const char *eq = strchr(arg, '=');
      snprintf(opt, sizeof opt, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
      if (eq) val = eq + 1;
    } else {
      snprintf(opt, sizeof opt, "-%c", arg[1]);
      if (arg[2]) val = arg + 2;
    }
    int flag = 0;
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) flag |= !strcmp(opt, flags[f]);
    if (flag) continue;
    if (!val) {
      if (i + 1 >= argc) return;
      val = argv[++i];
    }
    int real = !strcmp(opt, "-f") || !strcmp(opt, "--stepfactor") || !strcmp(opt, "-T") || !strcmp(opt, "--timeout") ||
               !strcmp(opt, "--drop");
    if (real && !decimal_text(val, strlen(val))) FAIL("%s accepted the non-decimal '%s'", opt, val);
    if ((strcmp(opt, "--routing") && strcmp(opt, "--tokens") && strcmp(opt, "--seq")) || !strchr(val, ':')) continue;
    const char *p = strchr(val, ':') + 1;
    if (!strcmp(opt, "--routing")) {
      for (const char *q; p; p = q ? q + 1 : NULL) {
        q = strchr(p, ':');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if (!decimal_text(p, n)) FAIL("--routing accepted the non-decimal part '%.*s' of '%s'", (int)n, p, val);
      }
    } else if ((p = strchr(p, ':'))) {
      if (!decimal_text(p + 1, strlen(p + 1))) FAIL("%s accepted the non-decimal factor of '%s'", opt, val);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  char *copy = malloc(size + 1);
  char **argv = malloc(sizeof(char *) * (size + 2));
  if (!copy || !argv) abort();
  memcpy(copy, data, size);
  copy[size] = 0;
  int argc = 0;
  argv[argc++] = "collbench";
  for (char *line = copy, *next; line && (size_t)(line - copy) <= size; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (!next && !*line) break; /* the last line's terminator */
    argv[argc++] = line;
  }
  argv[argc] = NULL;

  char err[1024];
  int rc = cb_args_parse(argc, argv, &A, err, sizeof err);
  if (rc == CB_ARGS_ERROR && (!err[0] || strchr(err, '\n'))) FAIL("error message empty or not one line: '%s'", err);
  if (rc != CB_ARGS_OK && rc != CB_ARGS_ERROR && rc != CB_ARGS_HELP) FAIL("result %d", rc);
  if (rc == CB_ARGS_OK) {
    if (A.npoints < 1 || A.ndtypes < 1 || A.nops < 1)
      FAIL("accepted with %d points %d dtypes %d ops", A.npoints, A.ndtypes, A.nops);
    if (A.family == CB_MOE) check_moe();
    else check_classic();
    check_root();
    check_reals(argc, argv);
  }
  /* the bar's two variables (gate.h), taken from the first two lines: refused with one line
   * naming the variable, or a finite bar >= 0 */
  cb_gate_t g;
  char why[256] = "";
  if (argc > 2 && cb_gate_parse(&g, argv[1], argv[2], why, sizeof why) == 0) {
    if (!g.set || !(g.bar_gbs >= 0.0 && g.bar_gbs < 1e308))
      FAIL("bar %g accepted from '%s' / '%s'", g.bar_gbs, argv[1], argv[2]);
  } else if (argc > 2 && (!why[0] || strchr(why, '\n') || !strstr(why, "MIN_B"))) {
    FAIL("gate error empty, not one line or not naming the variable: '%s'", why);
  }
  cb_strbuf_t b;
  cb_sb_init(&b);
  cb_sb_json_str(&b, A.cmdline);
  if (!cb_text_valid_json(b.s, b.len)) FAIL("command line as JSON is not valid: %s", b.s);
  cb_sb_free(&b);
  free(argv);
  free(copy);
  return 0;
}

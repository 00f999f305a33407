/* CPU test of collectives/moe_config.c: model presets, routing-law parsing and its canonical
 * text (parse -> format -> parse round trip), and every check cb_moe_config_check promises
 * (dtype, hidden multiple of 8 / of 128 for fp8, topk vs experts, experts divisible by ranks,
 * hot:K:F fitting the expert count, drop fraction). Router distributions come with issue 5. */
#include <stdint.h>

#include "cb_testing.h"
#include "moe_config.h"

static cb_moe_config_t base(void) {
  cb_moe_config_t c;
  memset(&c, 0, sizeof c);
  CHECK(cb_moe_preset("deepseek-v3", &c) == 0, "deepseek-v3 preset");
  c.routing.kind = CB_ROUTE_UNIFORM;
  return c;
}

static void test_presets(void) {
  static const struct {
    const char *name;
    int hidden, experts, topk;
  } want[] = {{"deepseek-v3", 7168, 256, 8}, {"mixtral-8x7b", 4096, 8, 2}, {"qwen3-30b-a3b", 2048, 128, 8}};
  for (size_t i = 0; i < 3; i++) {
    cb_moe_config_t c;
    memset(&c, 0, sizeof c);
    c.drop = 0.5;
    c.uneven = 1;
    CHECK(cb_moe_preset(want[i].name, &c) == 0, "preset %s", want[i].name);
    CHECK_EQ_STR(c.model, want[i].name);
    CHECK_EQ_INT(c.hidden, want[i].hidden);
    CHECK_EQ_INT(c.experts, want[i].experts);
    CHECK_EQ_INT(c.topk, want[i].topk);
    CHECK(c.drop == 0.5 && c.uneven == 1, "a preset sets only the shape");
    CHECK_CONTAINS(cb_moe_presets_accepted(), want[i].name);
    char why[256] = "";
    /* every preset runs in bf16 and fp8 on 1, 2, 4 and 8 ranks */
    for (int n = 1; n <= 8; n *= 2) {
      CHECK(cb_moe_config_check(&c, n, CB_BF16, why, sizeof why) == 0, "%s bf16 n=%d: %s", want[i].name, n, why);
      CHECK(cb_moe_config_check(&c, n, CB_FP8E4M3, why, sizeof why) == 0, "%s fp8 n=%d: %s", want[i].name, n, why);
    }
  }
  cb_moe_config_t c;
  memset(&c, 0, sizeof c);
  CHECK(cb_moe_preset("DeepSeek-V3", &c) == 0 && c.hidden == 7168, "preset names are case-insensitive");
  const char *bad[] = {"", "deepseek", "deepseek-v2", "mixtral", "llama-3-70b", "qwen3"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&c, 0, sizeof c);
    CHECK(cb_moe_preset(bad[i], &c) == -1, "preset '%s' accepted", bad[i]);
    CHECK(c.hidden == 0, "preset '%s' changed the config on failure", bad[i]);
  }
}

static void expect_routing(const char *s, cb_routing_kind_t kind, double zipf_s, int hot_k, double hot_f,
                           const char *canonical) {
  cb_routing_t r;
  memset(&r, 0xff, sizeof r);
  char why[256] = "";
  int rc = cb_routing_parse(s, &r, why, sizeof why);
  CHECK(rc == 0, "cb_routing_parse('%s') failed: %s", s, why);
  if (rc) return;
  CHECK(r.kind == kind, "'%s' kind %d", s, (int)r.kind);
  if (kind == CB_ROUTE_ZIPF) CHECK(r.zipf_s == zipf_s, "'%s' s = %.17g", s, r.zipf_s);
  if (kind == CB_ROUTE_HOT) CHECK(r.hot_k == hot_k && r.hot_f == hot_f, "'%s' K %d F %g", s, r.hot_k, r.hot_f);
  char text[64];
  cb_routing_format(&r, text, sizeof text);
  CHECK_EQ_STR(text, canonical);
  /* the canonical text parses back to the same law */
  cb_routing_t back;
  CHECK(cb_routing_parse(text, &back, why, sizeof why) == 0, "canonical '%s' does not parse: %s", text, why);
  CHECK(back.kind == r.kind && back.zipf_s == r.zipf_s && back.hot_k == r.hot_k && back.hot_f == r.hot_f,
        "'%s' -> '%s' does not round-trip", s, text);
}

static void expect_bad_routing(const char *s, const char *sub) {
  cb_routing_t r = {CB_ROUTE_ZIPF, 3.0, 0, 0.0};
  char why[256] = "";
  CHECK(cb_routing_parse(s, &r, why, sizeof why) == -1, "cb_routing_parse('%s') accepted (kind %d K %d)", s,
        (int)r.kind, r.hot_k);
  CHECK(r.kind == CB_ROUTE_ZIPF && r.zipf_s == 3.0, "cb_routing_parse('%s') wrote the output on failure", s);
  CHECK_CONTAINS(why, sub);
}

static void test_routing(void) {
  expect_routing("uniform", CB_ROUTE_UNIFORM, 0, 0, 0, "uniform");
  expect_routing("UNIFORM", CB_ROUTE_UNIFORM, 0, 0, 0, "uniform");
  expect_routing("zipf:1.2", CB_ROUTE_ZIPF, 1.2, 0, 0, "zipf:1.2");
  expect_routing("zipf:1", CB_ROUTE_ZIPF, 1.0, 0, 0, "zipf:1");
  expect_routing("zipf:0.5", CB_ROUTE_ZIPF, 0.5, 0, 0, "zipf:0.5");
  expect_routing("zipf:2.00", CB_ROUTE_ZIPF, 2.0, 0, 0, "zipf:2");
  expect_routing("zipf:0.001", CB_ROUTE_ZIPF, 0.001, 0, 0, "zipf:0.001");
  expect_routing("hot:4:2.5", CB_ROUTE_HOT, 0, 4, 2.5, "hot:4:2.5");
  expect_routing("hot:1:1", CB_ROUTE_HOT, 0, 1, 1.0, "hot:1:1");
  expect_routing("hot:16:8", CB_ROUTE_HOT, 0, 16, 8.0, "hot:16:8");

  expect_bad_routing("", "''");
  expect_bad_routing("bogus", "'bogus'");
  expect_bad_routing("zipf", "'zipf'");
  expect_bad_routing("zipf:", "'zipf:'");
  expect_bad_routing("zipf:0", "'zipf:0'");
  expect_bad_routing("zipf:-1", "'zipf:-1'");
  expect_bad_routing("zipf:abc", "'zipf:abc'");
  expect_bad_routing("zipf:1.2.3", "'zipf:1.2.3'");
  expect_bad_routing("zipf:nan", "'zipf:nan'");
  expect_bad_routing("zipf:inf", "'zipf:inf'");
  expect_bad_routing("zipf:1e999", "'zipf:1e999'");
  expect_bad_routing("hot", "'hot'");
  expect_bad_routing("hot:", "'hot:'");
  expect_bad_routing("hot:4", "'hot:4'");
  expect_bad_routing("hot:4:", "'hot:4:'");
  expect_bad_routing("hot::2", "'hot::2'");
  expect_bad_routing("hot:0:2", "'hot:0:2'");
  expect_bad_routing("hot:-2:2", "'hot:-2:2'");
  expect_bad_routing("hot:1.5:2", "'hot:1.5:2'");
  expect_bad_routing("hot:4:0.99", "'hot:4:0.99'");
  expect_bad_routing("hot:4:-2", "'hot:4:-2'");
  expect_bad_routing("hot:4:x", "'hot:4:x'");
  expect_bad_routing("hot:4:2:1", "'hot:4:2:1'");
  /* K must fit an int; a larger K must not wrap to a small one (2^32 + 1 would become 1). */
  expect_bad_routing("hot:4294967297:2", "'hot:4294967297:2'");
  expect_bad_routing("hot:2147483648:1", "'hot:2147483648:1'");
  expect_bad_routing("hot:99999999999999999999:1", "'hot:99999999999999999999:1'");
}

static void expect_check_fails(const cb_moe_config_t *c, int n, cb_dtype_t t, const char *sub1, const char *sub2) {
  char why[256] = "";
  CHECK(cb_moe_config_check(c, n, t, why, sizeof why) == -1,
        "config hidden %d topk %d experts %d routing %d K %d F %g drop %g n %d dtype %d accepted", c->hidden, c->topk,
        c->experts, (int)c->routing.kind, c->routing.hot_k, c->routing.hot_f, c->drop, n, (int)t);
  CHECK_CONTAINS(why, sub1);
  if (sub2) CHECK_CONTAINS(why, sub2);
}

static void expect_check_ok(const cb_moe_config_t *c, int n, cb_dtype_t t) {
  char why[256] = "";
  CHECK(cb_moe_config_check(c, n, t, why, sizeof why) == 0, "config hidden %d topk %d experts %d n %d rejected: %s",
        c->hidden, c->topk, c->experts, n, why);
}

static void test_checks(void) {
  cb_moe_config_t c = base();
  expect_check_ok(&c, 0, CB_BF16); /* nranks 0: rank-independent checks only (the CLI) */
  expect_check_ok(&c, 256, CB_BF16);
  /* dtype */
  expect_check_fails(&c, 2, CB_FLOAT, "float", "bfloat16");
  expect_check_fails(&c, 2, CB_HALF, "half", NULL);
  expect_check_fails(&c, 2, CB_FP8E5M2, "fp8e5m2", "fp8e4m3");
  /* experts divisible by ranks */
  expect_check_fails(&c, 3, CB_BF16, "256", "3 ranks");
  expect_check_fails(&c, 512, CB_BF16, "256", "512");
  /* topk */
  c = base();
  c.topk = 257;
  expect_check_fails(&c, 2, CB_BF16, "--topk 257", "--experts 256");
  c.topk = 0;
  expect_check_fails(&c, 2, CB_BF16, "--topk 0", NULL);
  c = base();
  c.experts = 8;
  c.topk = 8;
  expect_check_ok(&c, 8, CB_BF16);
  c.topk = 9;
  expect_check_fails(&c, 8, CB_BF16, "9", "8");
  c = base();
  c.topk = 33;
  expect_check_fails(&c, 2, CB_BF16, "33", "32");
  c.topk = 32;
  expect_check_ok(&c, 2, CB_BF16);
  c = base();
  c.experts = 0;
  expect_check_fails(&c, 0, CB_BF16, "--experts 0", NULL);
  /* hidden: multiple of 8; multiple of 128 for fp8 */
  c = base();
  c.hidden = 1000;
  expect_check_ok(&c, 2, CB_BF16);
  expect_check_fails(&c, 2, CB_FP8E4M3, "1000", "128");
  c.hidden = 1001;
  expect_check_fails(&c, 2, CB_BF16, "1001", "8");
  c.hidden = 4;
  expect_check_fails(&c, 2, CB_BF16, "4", "8");
  c.hidden = 0;
  expect_check_fails(&c, 2, CB_BF16, "0", NULL);
  c.hidden = -128;
  expect_check_fails(&c, 2, CB_BF16, "-128", NULL);
  c.hidden = 128;
  expect_check_ok(&c, 2, CB_FP8E4M3);
  c.hidden = 8;
  expect_check_ok(&c, 2, CB_BF16);
  /* hot:K:F must fit */
  c = base();
  c.routing.kind = CB_ROUTE_HOT;
  c.routing.hot_k = 4;
  c.routing.hot_f = 2.0;
  expect_check_ok(&c, 8, CB_BF16);
  c.routing.hot_k = 256;
  c.routing.hot_f = 1.0;
  expect_check_fails(&c, 8, CB_BF16, "hot:256:1", "256 experts");
  c.routing.hot_k = 64;
  c.routing.hot_f = 4.0; /* 64 x 4 = 256: exactly all traffic, allowed */
  expect_check_ok(&c, 8, CB_BF16);
  c.routing.hot_f = 4.5;
  expect_check_fails(&c, 8, CB_BF16, "hot:64:4.5", NULL);
  /* drop in [0, 1) */
  c = base();
  c.drop = 0.999;
  expect_check_ok(&c, 2, CB_BF16);
  c.drop = 1.0;
  expect_check_fails(&c, 2, CB_BF16, "--drop", NULL);
  c.drop = -0.01;
  expect_check_fails(&c, 2, CB_BF16, "--drop", NULL);
}

/* Long routing values are read whole: trailing garbage after 100 digits is rejected and a long
 * F keeps its value (a 64-byte copy once cut "hot:1:1<100 zeros>" to 1e+60). */
static void test_long_routing_values(void) {
  char s[256];
  snprintf(s, sizeof s, "hot:1:1.%0100dgarbage", 0);
  expect_bad_routing(s, "hot:K:F");
  snprintf(s, sizeof s, "hot:1:1%0100d", 0);
  cb_routing_t r;
  char why[256] = "";
  CHECK(cb_routing_parse(s, &r, why, sizeof why) == 0, "'%s': %s", s, why);
  CHECK(r.hot_f == 1e100, "'%s' read as F = %g, expected 1e+100", s, r.hot_f);
  snprintf(s, sizeof s, "hot:1:1.%0100d", 0);
  expect_routing(s, CB_ROUTE_HOT, 0, 1, 1.0, "hot:1:1");
  snprintf(s, sizeof s, "zipf:1.%0100dgarbage", 0);
  expect_bad_routing(s, "zipf:S");
  expect_bad_routing("hot: 1:2", "hot:K:F");
  expect_bad_routing("hot:+1:2", "hot:K:F");
}

int main(void) {
  test_presets();
  test_long_routing_values();
  test_routing();
  test_checks();
  return cb_test_finish("test_moe_config");
}

/* CPU test of the command line (launcher/args.c): every option in short, long and --opt=value
 * form, the defaults, K/M/G suffixes, comma lists, the moe options and presets, and every bad
 * input the CLI promises to reject. A rejection must return CB_ARGS_ERROR with a message that
 * names the bad value (and, where there is a fixed set, what is accepted): the test asserts
 * those substrings, so a silent fallback or a vague message fails here. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "args.h"
#include "args_testing.h"
#include "args_values.h"
#include "cb_testing.h"
#include "moe_config.h"
#include "rooted.h"
#include "strbuf.h"
#include "sweep_order.h"

#define KiB 1024ull
#define MiB (1024ull * KiB)
#define GiB (1024ull * MiB)

/* the moe configuration the last parse left (the family's own, family.h) */
#define MOE ((const cb_moe_config_t *)cb_args_config(&A))

/* The sweep points equal want[0..n). */
static void expect_points_at(int line, const char *cmd, const uint64_t *want, int n) {
  expect_ok_at(line, cmd);
  cb_test_checks++;
  int same = A.npoints == n;
  for (int i = 0; same && i < n; i++) same = A.points[i] == want[i];
  if (!same) {
    cb_test_failures++;
    fprintf(stderr, "FAIL %s:%d: '%s' gave %d points:", __FILE__, line, cmd, A.npoints);
    for (int i = 0; i < A.npoints && i < 40; i++) fprintf(stderr, " %llu", (unsigned long long)A.points[i]);
    fprintf(stderr, "; expected %d:", n);
    for (int i = 0; i < n; i++) fprintf(stderr, " %llu", (unsigned long long)want[i]);
    fprintf(stderr, "\n");
  }
}
#define EXPECT_POINTS(cmd, ...)                                                    \
  do {                                                                             \
    static const uint64_t want_[] = {__VA_ARGS__};                                 \
    expect_points_at(__LINE__, cmd, want_, (int)(sizeof want_ / sizeof want_[0])); \
  } while (0)

static void test_defaults(void) {
  EXPECT_OK("allreduce");
  CHECK_EQ_INT(A.family, CB_ALLREDUCE);
  CHECK_EQ_INT(A.iters, 20);
  CHECK_EQ_INT(A.warmup, 5);
  CHECK_EQ_INT(A.check_iters, 1);
  CHECK_EQ_INT(A.sms, 0); /* no cap unless asked */
  CHECK_EQ_INT(A.ndtypes, 1);
  CHECK_EQ_INT(A.dtypes[0], CB_FLOAT);
  CHECK_EQ_INT(A.nops, 1);
  CHECK_EQ_INT(A.ops[0], CB_SUM);
  CHECK_EQ_INT(A.places, CB_PLACE_OUT | CB_PLACE_IN);
  CHECK_EQ_INT(A.modes, CB_MODE_EAGER);
  CHECK_EQ_INT(A.iter_timing, 0);        /* round timing, as nccl-tests (args.h) */
  CHECK_EQ_INT(A.order, CB_ORDER_SIZES); /* every type and op at a size, then the next (sweep_order.h) */
  CHECK(A.timeout_s > 0.0, "default timeout %g", A.timeout_s);
  CHECK_EQ_INT(A.nalgos, 0);
  CHECK_EQ_STR(A.csv, "");
  CHECK_EQ_STR(A.json, "");
  CHECK_EQ_INT(A.no_bind, 0);
  /* -b 8 -e 256M -f 2: 8, 16, ..., 256 MiB = 2^3 .. 2^28, 26 points */
  CHECK_EQ_INT(A.npoints, 26);
  for (int i = 0; i < A.npoints && i < 26; i++) CHECK_EQ_INT(A.points[i], 8ull << i);
  CHECK_EQ_STR(A.cmdline, "collbench allreduce");

  /* Non-reducing families: op none; no in-place form for alltoall and sendrecv. */
  EXPECT_OK("alltoall");
  CHECK_EQ_INT(A.nops, 1);
  CHECK_EQ_INT(A.ops[0], CB_OP_NONE);
  CHECK_EQ_INT(A.places, CB_PLACE_OUT);
  EXPECT_OK("sendrecv");
  CHECK_EQ_INT(A.places, CB_PLACE_OUT);
  CHECK_EQ_INT(A.ops[0], CB_OP_NONE);
  EXPECT_OK("allgather");
  CHECK_EQ_INT(A.places, CB_PLACE_OUT | CB_PLACE_IN);
  CHECK_EQ_INT(A.ops[0], CB_OP_NONE);
  EXPECT_OK("reducescatter");
  CHECK_EQ_INT(A.ops[0], CB_SUM);
  /* The rooted families: root 0 by default, -r/--root/-rN into the family's configuration (rooted.h) */
  EXPECT_OK("broadcast");
  CHECK_EQ_INT(((const cb_rooted_config_t *)A.config.bytes)->root, 0);
  CHECK_EQ_INT(A.ops[0], CB_OP_NONE);
  CHECK_EQ_INT(A.places, CB_PLACE_OUT | CB_PLACE_IN);
  EXPECT_OK("reduce -r 3 -o max");
  CHECK_EQ_INT(((const cb_rooted_config_t *)A.config.bytes)->root, 3);
  CHECK_EQ_INT(A.ops[0], CB_MAX);
  EXPECT_OK("gather --root=-1");
  CHECK_EQ_INT(((const cb_rooted_config_t *)A.config.bytes)->root, -1);
  EXPECT_OK("scatter -r7");
  CHECK_EQ_INT(((const cb_rooted_config_t *)A.config.bytes)->root, 7);
  CHECK_EQ_INT(A.places, CB_PLACE_OUT | CB_PLACE_IN);
  EXPECT_OK("AllReduce"); /* family names are case-insensitive */
  CHECK_EQ_INT(A.family, CB_ALLREDUCE);

  /* moe: bfloat16, tokens 128..4096 x2, DeepSeek-V3 shape, uniform routing, out of place. */
  EXPECT_POINTS("moe", 128, 256, 512, 1024, 2048, 4096);
  CHECK_EQ_INT(A.family, CB_MOE);
  CHECK_EQ_INT(A.ndtypes, 1);
  CHECK_EQ_INT(A.dtypes[0], CB_BF16);
  CHECK_EQ_INT(A.ops[0], CB_OP_NONE);
  CHECK_EQ_INT(A.places, CB_PLACE_OUT);
  CHECK_EQ_STR(MOE->model, "deepseek-v3");
  CHECK_EQ_INT(MOE->hidden, 7168);
  CHECK_EQ_INT(MOE->experts, 256);
  CHECK_EQ_INT(MOE->topk, 8);
  CHECK_EQ_INT(MOE->routing.kind, CB_ROUTE_UNIFORM);
  CHECK_EQ_INT(MOE->uneven, 0);
  CHECK_EQ_INT(MOE->validate, 0);
  CHECK_EQ_INT(MOE->overlap, 0);
  CHECK(MOE->drop == 0.0, "default drop %g", MOE->drop);
}

static void test_options(void) {
  /* the SM cap */
  EXPECT_OK("moe --sms 32");
  CHECK_EQ_INT(A.sms, 32);
  EXPECT_OK("allreduce --sms=1");
  CHECK_EQ_INT(A.sms, 1);
  EXPECT_OK("alltoall --sms 65536");
  CHECK_EQ_INT(A.sms, 65536);
  /* sizes, short / long / attached / --opt=value forms */
  EXPECT_POINTS("allreduce -b 1K -e 1M -f 4", 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB);
  EXPECT_POINTS("allreduce --minbytes=1K --maxbytes 1M --stepfactor=4", 1 * KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB,
                1 * MiB);
  EXPECT_POINTS("allreduce -b1K -e4K", 1 * KiB, 2 * KiB, 4 * KiB);
  EXPECT_POINTS("allreduce -b 1K -e 4K -i 1K", 1 * KiB, 2 * KiB, 3 * KiB, 4 * KiB);
  EXPECT_POINTS("allreduce -b 1000 -e 4000 --stepbytes=1000", 1000, 2000, 3000, 4000);
  EXPECT_POINTS("allreduce -b 8 -e 100 -f 2", 8, 16, 32, 64); /* nccl-tests: last point <= max */
  EXPECT_POINTS("allreduce -b 8 -e 100 -i 40", 8, 48, 88);
  EXPECT_POINTS("allreduce -b 3 -e 100 -f 3", 3, 9, 27, 81);
  EXPECT_POINTS("allreduce -b 64 -e 64", 64);
  EXPECT_POINTS("allreduce -b 0 -e 0", 0);
  EXPECT_POINTS("allreduce -b 0 -e 8 -i 4", 0, 4, 8);
  /* K/M/G/T suffixes, upper and lower case, with B / iB */
  EXPECT_POINTS("allreduce -b 1k -e 1k", 1 * KiB);
  EXPECT_POINTS("allreduce -b 2M -e 2MiB", 2 * MiB);
  EXPECT_POINTS("allreduce -b 1G -e 8g -f 8", 1 * GiB, 8 * GiB);
  EXPECT_POINTS("allreduce -b 1T -e 1TB", 1024 * GiB);
  EXPECT_POINTS("allreduce -b 8B -e 8", 8);
  /* --sizes: exact list, kept in the given order */
  EXPECT_POINTS("allreduce --sizes 4,12,1032,1M", 4, 12, 1032, 1 * MiB);
  EXPECT_POINTS("allreduce --sizes=1G", 1 * GiB);
  EXPECT_POINTS("allreduce --sizes 64K,4", 64 * KiB, 4);

  EXPECT_OK("allreduce -n 7 -w 0 -c 0");
  CHECK_EQ_INT(A.iters, 7);
  CHECK_EQ_INT(A.warmup, 0);
  CHECK_EQ_INT(A.check_iters, 0);
  EXPECT_OK("allreduce --iters=1000000 --warmup 1000000 --check=1000");
  CHECK_EQ_INT(A.iters, 1000000);
  CHECK_EQ_INT(A.warmup, 1000000);
  CHECK_EQ_INT(A.check_iters, 1000);
  EXPECT_OK("allreduce -n3 -w2 -c4");
  CHECK_EQ_INT(A.iters, 3);
  CHECK_EQ_INT(A.warmup, 2);
  CHECK_EQ_INT(A.check_iters, 4);

  EXPECT_OK("allreduce -d float,half,bfloat16,fp8e4m3,fp8e5m2");
  CHECK_EQ_INT(A.ndtypes, 5);
  for (int t = 0; t < 5 && t < A.ndtypes; t++) CHECK_EQ_INT(A.dtypes[t], t);
  EXPECT_OK("allreduce --datatype=bf16,fp32,fp16,e4m3,e5m2"); /* aliases, order kept */
  CHECK_EQ_INT(A.ndtypes, 5);
  CHECK_EQ_INT(A.dtypes[0], CB_BF16);
  CHECK_EQ_INT(A.dtypes[1], CB_FLOAT);
  CHECK_EQ_INT(A.dtypes[2], CB_HALF);
  CHECK_EQ_INT(A.dtypes[3], CB_FP8E4M3);
  CHECK_EQ_INT(A.dtypes[4], CB_FP8E5M2);
  EXPECT_OK("allreduce -d half -d bfloat16"); /* a repeated option replaces the list */
  CHECK_EQ_INT(A.ndtypes, 1);
  CHECK_EQ_INT(A.dtypes[0], CB_BF16);

  EXPECT_OK("allreduce -o sum,max,min,avg");
  CHECK_EQ_INT(A.nops, 4);
  for (int o = 0; o < 4 && o < A.nops; o++) CHECK_EQ_INT(A.ops[o], o);
  EXPECT_OK("reducescatter --op=avg");
  CHECK_EQ_INT(A.nops, 1);
  CHECK_EQ_INT(A.ops[0], CB_AVG);

  EXPECT_OK("allreduce -G 1");
  CHECK_EQ_INT(A.modes, CB_MODE_GRAPH);
  EXPECT_OK("allreduce --graph");
  CHECK_EQ_INT(A.modes, CB_MODE_GRAPH);
  EXPECT_OK("allreduce --mode graph");
  CHECK_EQ_INT(A.modes, CB_MODE_GRAPH);
  EXPECT_OK("allreduce --mode=both");
  CHECK_EQ_INT(A.modes, CB_MODE_EAGER | CB_MODE_GRAPH);
  EXPECT_OK("allreduce --mode eager");
  CHECK_EQ_INT(A.modes, CB_MODE_EAGER);

  EXPECT_OK("allreduce --inplace 0");
  CHECK_EQ_INT(A.places, CB_PLACE_OUT);
  EXPECT_OK("allreduce --inplace=1");
  CHECK_EQ_INT(A.places, CB_PLACE_IN);
  EXPECT_OK("allgather --inplace both");
  CHECK_EQ_INT(A.places, CB_PLACE_OUT | CB_PLACE_IN);
  EXPECT_OK("alltoall --inplace 0");
  CHECK_EQ_INT(A.places, CB_PLACE_OUT);

  EXPECT_OK("allreduce --timing round");
  CHECK_EQ_INT(A.iter_timing, 0);
  EXPECT_OK("allreduce --timing=iter");
  CHECK_EQ_INT(A.iter_timing, 1);
  EXPECT_OK("allreduce -d all --order types");
  CHECK_EQ_INT(A.order, CB_ORDER_TYPES);
  EXPECT_OK("allreduce --order=sizes");
  CHECK_EQ_INT(A.order, CB_ORDER_SIZES);

  EXPECT_OK("allreduce -T 2.5");
  CHECK(A.timeout_s == 2.5, "timeout %g", A.timeout_s);
  EXPECT_OK("allreduce --timeout=600");
  CHECK(A.timeout_s == 600.0, "timeout %g", A.timeout_s);

  EXPECT_OK("allreduce --algo nccl,oneshot,twoshot");
  CHECK_EQ_INT(A.nalgos, 3);
  CHECK_EQ_STR(A.algos[0], "nccl");
  CHECK_EQ_STR(A.algos[1], "oneshot");
  CHECK_EQ_STR(A.algos[2], "twoshot");
  EXPECT_OK("alltoall --algo=nccl_p2p"); /* names are resolved later, against the registry */
  CHECK_EQ_INT(A.nalgos, 1);
  CHECK_EQ_STR(A.algos[0], "nccl_p2p");

  EXPECT_OK("allreduce --csv out/r.csv --json=out/r.json --seed 42 --no-bind");
  CHECK_EQ_STR(A.csv, "out/r.csv");
  CHECK_EQ_STR(A.json, "out/r.json");
  CHECK_EQ_INT(A.seed, 42);
  CHECK_EQ_INT(A.no_bind, 1);
  CHECK_EQ_STR(A.cmdline, "collbench allreduce --csv out/r.csv --json=out/r.json --seed 42 --no-bind");
  EXPECT_OK("allreduce --seed 0");
  CHECK_EQ_INT(A.seed, 0);
  EXPECT_OK("allreduce --seed 18446744073709551615");
  CHECK(A.seed == UINT64_MAX, "seed %llu", (unsigned long long)A.seed);

  CHECK_EQ_INT(parse("--help"), CB_ARGS_HELP);
  CHECK_EQ_INT(parse("-h"), CB_ARGS_HELP);
  CHECK_EQ_INT(parse("allreduce --help"), CB_ARGS_HELP);
  CHECK_EQ_INT(parse("moe -h"), CB_ARGS_HELP);
}

static void test_moe_options(void) {
  EXPECT_OK("moe --model mixtral-8x7b");
  CHECK_EQ_STR(MOE->model, "mixtral-8x7b");
  CHECK_EQ_INT(MOE->hidden, 4096);
  CHECK_EQ_INT(MOE->experts, 8);
  CHECK_EQ_INT(MOE->topk, 2);
  EXPECT_OK("moe --model=qwen3-30b-a3b");
  CHECK_EQ_STR(MOE->model, "qwen3-30b-a3b");
  CHECK_EQ_INT(MOE->hidden, 2048);
  CHECK_EQ_INT(MOE->experts, 128);
  CHECK_EQ_INT(MOE->topk, 8);
  EXPECT_OK("moe --model deepseek-v3");
  CHECK_EQ_STR(MOE->model, "deepseek-v3");
  CHECK_EQ_INT(MOE->hidden, 7168);
  CHECK_EQ_INT(MOE->experts, 256);
  CHECK_EQ_INT(MOE->topk, 8);
  /* an explicit shape overrides the preset and makes the model "custom" */
  EXPECT_OK("moe --model mixtral-8x7b --hidden 1024");
  CHECK_EQ_STR(MOE->model, "custom");
  CHECK_EQ_INT(MOE->hidden, 1024);
  CHECK_EQ_INT(MOE->experts, 8);
  EXPECT_OK("moe --hidden 2048 --topk 4 --experts 64");
  CHECK_EQ_STR(MOE->model, "custom");
  CHECK_EQ_INT(MOE->hidden, 2048);
  CHECK_EQ_INT(MOE->topk, 4);
  CHECK_EQ_INT(MOE->experts, 64);

  EXPECT_POINTS("moe --tokens 1,128,4096", 1, 128, 4096);
  EXPECT_POINTS("moe --tokens 0,16", 0, 16);
  EXPECT_POINTS("moe --tokens=128:1024", 128, 256, 512, 1024);
  EXPECT_POINTS("moe --tokens 1:81:3", 1, 3, 9, 27, 81);
  EXPECT_POINTS("moe --tokens 1:100", 1, 2, 4, 8, 16, 32, 64);
  EXPECT_POINTS("moe --tokens 16777216", 16777216);

  EXPECT_OK("moe --routing zipf:1.2");
  CHECK_EQ_INT(MOE->routing.kind, CB_ROUTE_ZIPF);
  CHECK(MOE->routing.zipf_s == 1.2, "zipf s %g", MOE->routing.zipf_s);
  EXPECT_OK("moe --routing=hot:4:2.5");
  CHECK_EQ_INT(MOE->routing.kind, CB_ROUTE_HOT);
  CHECK_EQ_INT(MOE->routing.hot_k, 4);
  CHECK(MOE->routing.hot_f == 2.5, "hot f %g", MOE->routing.hot_f);
  EXPECT_OK("moe --routing zipf:2 --routing uniform");
  CHECK_EQ_INT(MOE->routing.kind, CB_ROUTE_UNIFORM);

  EXPECT_OK("moe --uneven --validate --drop 0.25");
  CHECK_EQ_INT(MOE->uneven, 1);
  CHECK_EQ_INT(MOE->validate, 1);
  CHECK(MOE->drop == 0.25, "drop %g", MOE->drop);
  CHECK_EQ_INT(MOE->overlap, 0);
  EXPECT_OK("moe --overlap --sms 32");
  CHECK_EQ_INT(MOE->overlap, 1);

  EXPECT_OK("moe -d fp8e4m3,bfloat16"); /* 7168 = 56 x 128 */
  CHECK_EQ_INT(A.ndtypes, 2);
  CHECK_EQ_INT(A.dtypes[0], CB_FP8E4M3);
  CHECK_EQ_INT(A.dtypes[1], CB_BF16);
  EXPECT_OK("moe --hidden 1000 -d bfloat16"); /* multiple of 8 is enough for bf16 */
  EXPECT_OK("moe --experts 8 --topk 8");      /* topk == experts is allowed */
  EXPECT_OK("moe --algo nccl,peer -n 5 -w 1 -c 2 -G 2 --csv m.csv");
  CHECK_EQ_INT(A.graph_launches, 2);
  CHECK_EQ_INT(A.nalgos, 2);
  CHECK_EQ_INT(A.iters, 5);
  CHECK_EQ_INT(A.modes, CB_MODE_GRAPH);
}

static void test_bad_input(void) {
  /* family */
  EXPECT_ERR("", "missing FAMILY", "allreduce");
  EXPECT_ERR("allreduc", "'allreduc'", "allreduce, allgather");
  EXPECT_ERR("ringattention", "'ringattention'");
  EXPECT_ERR("-b 8", "'-b'");
  EXPECT_ERR("allreduce alltoall", "'alltoall'");

  /* options */
  EXPECT_ERR("allreduce --bogus", "'--bogus'");
  EXPECT_ERR("allreduce --bogus=1", "'--bogus=1'");
  EXPECT_ERR("allreduce -X", "'-X'");
  EXPECT_ERR("allreduce --iter 5", "'--iter'"); /* no prefix matching */
  EXPECT_ERR("allreduce -n", "'-n'", "needs a value");
  EXPECT_ERR("allreduce --algo", "'--algo'", "needs a value");
  EXPECT_ERR("allreduce --no-bind=1", "'--no-bind=1'", "takes no value");
  EXPECT_ERR("allreduce -Gx", "-G", "'x'", "graph launch count");
  EXPECT_ERR("allreduce --graph=yes", "takes no value");
  EXPECT_ERR("moe --overlap=1", "'--overlap=1'", "takes no value");
  EXPECT_ERR("moe --overlapx", "--overlapx");
  /* the SM cap (the device's own count is checked once the GPU is known) */
  EXPECT_ERR("moe --sms 0", "--sms", "'0'", "1..65536");
  EXPECT_ERR("moe --sms -1", "--sms", "'-1'");
  EXPECT_ERR("moe --sms 100000", "--sms", "'100000'");
  EXPECT_ERR("moe --sms 32x", "'32x'");
  EXPECT_ERR("moe --sms ''", "--sms");
  EXPECT_ERR("moe --sms", "'--sms'", "needs a value");
  EXPECT_ERR("allreduce 8", "'8'");

  /* dtype / op lists */
  EXPECT_ERR("allreduce -d float,bogus", "'bogus'", "float, half, bfloat16, fp8e4m3, fp8e5m2");
  EXPECT_ERR("allreduce -d double8", "'double8'", "bfloat16", "double");
  EXPECT_ERR("allreduce -d int16", "'int16'", "int8");
  EXPECT_ERR("allreduce -d ,", "empty item");
  EXPECT_ERR("allreduce -d ''", "empty item");
  EXPECT_ERR("allreduce -o product", "'product'", "sum, prod, max, min, avg");
  EXPECT_ERR("allreduce -o sum,none", "'none'");
  EXPECT_ERR("allreduce -o ,", "empty item");
  EXPECT_ERR("allreduce -d float,", "'float,'", "empty item");
  EXPECT_ERR("allreduce --algo nccl,,oneshot", "'nccl,,oneshot'", "empty item");

  /* --algo list syntax */
  EXPECT_ERR("allreduce --algo ''", "--algo", "empty item");
  EXPECT_ERR("allreduce --algo ,,", "--algo", "empty item");
  EXPECT_ERR("allreduce --algo a_name_that_is_much_longer_than_32_chars", "'a_name_that_is_much_longer_than_32_chars'",
             "too long");
  EXPECT_ERR("allreduce --algo a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "--algo", "16");

  /* malformed and overflowing sizes */
  EXPECT_ERR("allreduce -b 1X", "'1X'");
  EXPECT_ERR("allreduce -b -8", "'-8'");
  EXPECT_ERR("allreduce -b +8", "'+8'");
  EXPECT_ERR("allreduce -b 1.5K", "'1.5K'");
  EXPECT_ERR("allreduce -b K", "'K'");
  EXPECT_ERR("allreduce -b ''", "-b");
  EXPECT_ERR("allreduce -e 1KK", "'1KK'");
  EXPECT_ERR("allreduce -e 0x100", "'0x100'");
  EXPECT_ERR("allreduce -e 8iB", "'8iB'");
  EXPECT_ERR("allreduce -e 18446744073709551616", "'18446744073709551616'");
  EXPECT_ERR("allreduce -e 99999999999999999999", "'99999999999999999999'");
  EXPECT_ERR("allreduce -e 16777216T", "'16777216T'");
  EXPECT_ERR("allreduce -e 17179869184G", "'17179869184G'");
  EXPECT_ERR("allreduce -i 1.5", "'1.5'");
  EXPECT_ERR("allreduce -b 8 -e 64 -i 0", "'0'");
  EXPECT_ERR("allreduce --sizes 8,x", "'x'");
  EXPECT_ERR("allreduce --sizes 8,-1", "'-1'");
  EXPECT_ERR("allreduce --sizes ,", "--sizes", "empty item");
  EXPECT_ERR("allreduce --sizes 8,99999999999999999999", "'99999999999999999999'");

  /* step factor */
  EXPECT_ERR("allreduce -f 1", "'1'", "> 1");
  EXPECT_ERR("allreduce -f 0.5", "'0.5'");
  EXPECT_ERR("allreduce -f -2", "'-2'");
  EXPECT_ERR("allreduce -f abc", "'abc'");
  EXPECT_ERR("allreduce -f 2x", "'2x'");
  EXPECT_ERR("allreduce -f nan", "'nan'");
  EXPECT_ERR("allreduce -f inf", "'inf'");
  EXPECT_ERR("allreduce -f 2 -i 1K", "-f", "-i");
  EXPECT_ERR("allreduce -i 1K -f 2", "-f", "-i");

  /* -b > -e, sweeps that do not fit */
  EXPECT_ERR("allreduce -b 1K -e 8", "1024", "8");
  EXPECT_ERR("allreduce -b 1M -e 1K", "1048576", "1024");
  EXPECT_ERR("allreduce -b 0 -e 8", "at 0");       /* geometric from 0 never grows */
  EXPECT_ERR("allreduce -b 1 -e 1M -i 1", "4096"); /* over CB_MAX_SWEEP_POINTS */
  EXPECT_ERR("allreduce --sizes 8 -b 16", "--sizes");
  EXPECT_ERR("allreduce -b 16 --sizes 8", "--sizes");
  EXPECT_ERR("allreduce --sizes 8 -f 4", "--sizes");
  EXPECT_ERR("allreduce --sizes 8 -i 8", "--sizes");

  /* non-numeric and out-of-range counts */
  EXPECT_ERR("allreduce -n abc", "'abc'");
  EXPECT_ERR("allreduce -n 0", "'0'");
  EXPECT_ERR("allreduce -n -1", "'-1'");
  EXPECT_ERR("allreduce -n 1.5", "'1.5'");
  EXPECT_ERR("allreduce -n 10x", "'10x'");
  EXPECT_ERR("allreduce -n 1000001", "'1000001'");
  EXPECT_ERR("allreduce -n 99999999999999999999", "'99999999999999999999'");
  EXPECT_ERR("allreduce -n ''", "-n");
  EXPECT_ERR("allreduce -w x", "'x'");
  EXPECT_ERR("allreduce -w -1", "'-1'");
  EXPECT_ERR("allreduce -c x", "'x'");
  EXPECT_ERR("allreduce -c 1001", "'1001'");
  EXPECT_ERR("allreduce -T x", "'x'");
  EXPECT_ERR("allreduce -T 0", "'0'");
  EXPECT_ERR("allreduce -T -5", "'-5'");
  EXPECT_ERR("allreduce -T 86401", "'86401'");
  EXPECT_ERR("allreduce -T nan", "'nan'");
  EXPECT_ERR("allreduce --timeout=10s", "'10s'");
  EXPECT_ERR("allreduce --seed -1", "'-1'");
  EXPECT_ERR("allreduce --seed abc", "'abc'");
  EXPECT_ERR("allreduce --seed 18446744073709551616", "'18446744073709551616'");

  /* enumerations */
  EXPECT_ERR("allreduce --mode fast", "'fast'", "eager, graph, both");
  EXPECT_ERR("allreduce --inplace 2", "'2'", "0, 1, both");
  EXPECT_ERR("allreduce --inplace yes", "'yes'");
  EXPECT_ERR("allreduce --timing wall", "'wall'", "iter, round");
  EXPECT_ERR("allreduce --order type", "--order: 'type'", "sizes, types");
  EXPECT_ERR("alltoall --inplace 1", "alltoall", "in-place");
  EXPECT_ERR("sendrecv --inplace 1", "sendrecv", "in-place");
  EXPECT_ERR("allreduce --csv ''", "--csv");
  EXPECT_ERR("allreduce --json ''", "--json");

  /* -o on families that do not reduce */
  EXPECT_ERR("alltoall -o sum", "alltoall", "takes no reduction op");
  EXPECT_ERR("allgather -o max", "allgather", "takes no reduction op");
  EXPECT_ERR("sendrecv --op sum", "sendrecv", "takes no reduction op");
  EXPECT_ERR("moe -o sum", "moe", "takes no reduction op");
  EXPECT_ERR("broadcast -o sum", "broadcast", "takes no reduction op", "allreduce, reducescatter and reduce");
  /* -r/--root: the rooted families' root; a family without one, a root past CB_ROOTS_MAX or below -1 */
  EXPECT_ERR("allreduce -r 0", "-r: allreduce has no root", "broadcast, reduce, gather, scatter");
  EXPECT_ERR("hypercube --root 1", "--root: hypercube has no root");
  EXPECT_ERR("gather -r 4096", "'4096' is not a root rank (0..4095, or -1 for every root in turn)");
  EXPECT_ERR("scatter -r -2", "'-2' is not a root rank");
  EXPECT_ERR("reduce -r", "option '-r' needs a value");

  /* moe options on other families */
  EXPECT_ERR("allreduce --tokens 128", "--tokens", "moe");
  EXPECT_ERR("alltoall --hidden 1024", "--hidden", "moe");
  EXPECT_ERR("allreduce --topk 2", "--topk", "moe");
  EXPECT_ERR("allgather --experts 8", "--experts", "moe");
  EXPECT_ERR("allreduce --routing zipf:1.1", "--routing", "moe");
  EXPECT_ERR("allreduce --model mixtral-8x7b", "--model", "moe");
  EXPECT_ERR("sendrecv --uneven", "--uneven", "moe");
  EXPECT_ERR("allreduce --validate", "--validate", "moe");
  EXPECT_ERR("alltoall --overlap", "--overlap", "moe");
  EXPECT_ERR("ringattn --overlap", "--overlap", "moe");
  EXPECT_ERR("reducescatter --drop 0.1", "--drop", "moe");

  /* sizes on moe */
  EXPECT_ERR("moe -b 8", "--tokens");
  EXPECT_ERR("moe -e 1M", "--tokens");
  EXPECT_ERR("moe -f 4", "--tokens");
  EXPECT_ERR("moe -i 8", "--tokens");
  EXPECT_ERR("moe --sizes 8,16", "--tokens");

  /* moe values */
  EXPECT_ERR("moe --model llama", "'llama'", "deepseek-v3, mixtral-8x7b, qwen3-30b-a3b");
  EXPECT_ERR("moe --topk 300", "300", "256");
  EXPECT_ERR("moe --experts 4 --topk 8", "--topk 8", "--experts 4");
  EXPECT_ERR("moe --model mixtral-8x7b --topk 9", "9", "8");
  EXPECT_ERR("moe --topk 33 --experts 64", "33");
  EXPECT_ERR("moe -d fp8e4m3 --hidden 1000", "1000", "128");
  EXPECT_ERR("moe --hidden 1000 -d bfloat16,fp8e4m3", "1000", "128");
  EXPECT_ERR("moe --hidden 1001", "1001", "8");
  EXPECT_ERR("moe --hidden 0", "'0'");
  EXPECT_ERR("moe --hidden x", "'x'");
  EXPECT_ERR("moe --topk 0", "'0'");
  EXPECT_ERR("moe --experts -8", "'-8'");
  EXPECT_ERR("moe -d float", "'float'", "bfloat16");
  EXPECT_ERR("moe -d fp8e5m2", "'fp8e5m2'", "fp8e4m3");
  EXPECT_ERR("moe --drop 1", "'1'");
  EXPECT_ERR("moe --drop -0.1", "'-0.1'");
  EXPECT_ERR("moe --drop x", "'x'");
  EXPECT_ERR("moe --tokens x", "'x'");
  EXPECT_ERR("moe --tokens 16777217", "'16777217'");
  EXPECT_ERR("moe --tokens 128,-1", "'-1'");
  EXPECT_ERR("moe --tokens ,", "--tokens", "empty item");
  EXPECT_ERR("moe --tokens 0", "--tokens", "every value is 0");
  EXPECT_ERR("moe --tokens 0,0", "--tokens", "listed twice");
  EXPECT_OK("moe --tokens 0,128");
  EXPECT_ERR("moe --tokens 0:8", "'0:8'");
  EXPECT_ERR("moe --tokens 8:4", "8", "4");
  EXPECT_ERR("moe --tokens 1:8:1", "'1:8:1'");
  EXPECT_ERR("moe --tokens 1:8:x", "'1:8:x'");
  EXPECT_ERR("moe --tokens a:8", "'a:8'");
  EXPECT_ERR("moe --tokens 1:", "'1:'");
  EXPECT_ERR("moe --tokens 1:8:2:4", "'1:8:2:4'");

  /* routing strings */
  EXPECT_ERR("moe --routing bogus", "'bogus'", "uniform, zipf:S, hot:K:F");
  EXPECT_ERR("moe --routing ''", "--routing");
  EXPECT_ERR("moe --routing zipf", "'zipf'");
  EXPECT_ERR("moe --routing zipf:", "'zipf:'");
  EXPECT_ERR("moe --routing zipf:0", "'zipf:0'");
  EXPECT_ERR("moe --routing zipf:-1", "'zipf:-1'");
  EXPECT_ERR("moe --routing zipf:abc", "'zipf:abc'");
  EXPECT_ERR("moe --routing zipf:1.2x", "'zipf:1.2x'");
  EXPECT_ERR("moe --routing zipf:nan", "'zipf:nan'");
  EXPECT_ERR("moe --routing zipf:inf", "'zipf:inf'");
  EXPECT_ERR("moe --routing hot", "'hot'");
  EXPECT_ERR("moe --routing hot:4", "'hot:4'");
  EXPECT_ERR("moe --routing hot:4:", "'hot:4:'");
  EXPECT_ERR("moe --routing hot:0:2", "'hot:0:2'");
  EXPECT_ERR("moe --routing hot:-1:2", "'hot:-1:2'");
  EXPECT_ERR("moe --routing hot:x:2", "'hot:x:2'");
  EXPECT_ERR("moe --routing hot:2.5:2", "'hot:2.5:2'");
  EXPECT_ERR("moe --routing hot:4:0.5", "'hot:4:0.5'");
  EXPECT_ERR("moe --routing hot:4:2:1", "'hot:4:2:1'");
  EXPECT_ERR("moe --routing hot:300:1", "hot:300:1", "256"); /* K >= experts */
  EXPECT_ERR("moe --routing hot:64:5", "hot:64:5", "256");   /* K*F > experts */
  EXPECT_ERR("moe --model mixtral-8x7b --routing hot:8:1", "hot:8:1", "8 experts");
  /* K beyond int: must be rejected, not truncated to a small K (4294967297 = 2^32 + 1). */
  EXPECT_ERR("moe --routing hot:4294967297:2", "4294967297");
  EXPECT_ERR("moe --routing hot:2147483648:1", "2147483648");

  /* -g: one rank per GPU */
  EXPECT_ERR("allreduce -g 2", "-g", "one process per GPU");
  EXPECT_ERR("allreduce -g2", "-g2", "one process per GPU");
  EXPECT_ERR("allreduce --ngpus 8", "--ngpus", "one process per GPU");

  /* duplicate list entries */
  EXPECT_ERR("allreduce -d float,float", "'float'", "twice");
  EXPECT_ERR("allreduce -d float,fp32", "'fp32'", "twice"); /* an alias of an earlier entry */
  EXPECT_ERR("allreduce -o sum,max,sum", "'sum'", "twice");
  EXPECT_ERR("allreduce --algo nccl,oneshot,nccl", "'nccl'", "twice");
  EXPECT_ERR("moe -d bfloat16,bf16", "'bf16'", "twice");
  EXPECT_ERR("allreduce --sizes 8,16,8", "8", "twice");
  EXPECT_ERR("allreduce --sizes 1K,1024", "1024", "twice"); /* the same size spelled twice */
  EXPECT_ERR("moe --tokens 128,256,128", "128", "twice");

  /* --sizes with -b/-e spelled at their default values is still a conflict. */
  EXPECT_ERR("allreduce -b 8 --sizes 16", "--sizes");
  EXPECT_ERR("allreduce --sizes 16 -e 256M", "--sizes");
}

/* A --tokens range whose first ':' lies past byte 127 once crashed the parser (a fixed 128-byte
 * copy lost the ':' and a NULL was written through); it must be a usage error. */
static void test_long_tokens_value(void) {
  char cmd[512];
  char ones[131];
  memset(ones, '1', 130);
  ones[130] = 0;
  snprintf(cmd, sizeof cmd, "moe --tokens %s:4096", ones);
  EXPECT_ERR(cmd, "--tokens", "is not A:B");
  snprintf(cmd, sizeof cmd, "moe --tokens 1:4096:2.%0200d", 0); /* long but valid: factor 2 */
  EXPECT_POINTS(cmd, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096);
  snprintf(cmd, sizeof cmd, "moe --tokens 1:4096:2.%0200dgarbage", 0);
  EXPECT_ERR(cmd, "--tokens", "garbage");
  snprintf(cmd, sizeof cmd, "moe --tokens 128:%0120d4096", 0); /* long but valid: 128..4096 */
  EXPECT_POINTS(cmd, 128, 256, 512, 1024, 2048, 4096);
}

/* --seed is decimal: leading zeros do not switch to octal, hex is not a seed. */
static void test_seed_decimal(void) {
  EXPECT_OK("allreduce --seed 010");
  CHECK_EQ_INT(A.seed, 10);
  EXPECT_OK("allreduce --seed 08");
  CHECK_EQ_INT(A.seed, 8);
  EXPECT_ERR("allreduce --seed 0x10", "'0x10'");
  EXPECT_ERR("allreduce --seed +5", "'+5'");
}

/* --csv and --json naming one file: the JSON's final rename would replace the CSV. */
static void test_csv_json_same_file(void) {
  EXPECT_ERR("allreduce --csv r.out --json r.out", "--csv", "--json", "same file");
  EXPECT_ERR("allreduce --json=r.out --csv=r.out.partial.jsonl", "same file");
  EXPECT_OK("allreduce --json r.out --csv r.out.tmp"); /* no FILE.tmp any more: temporaries are new names */
  EXPECT_ERR("allreduce --csv /tmp/r.out --json /tmp/../tmp/r.out", "same file");
  EXPECT_ERR("allreduce --csv ./r.out --json r.out", "same file");
  EXPECT_OK("allreduce --csv r.csv --json r.json");
  EXPECT_OK("allreduce --csv /tmp/a/r.out --json /tmp/b/r.out");
}

/* One file under two names (issue 32 N22): a symlink or a hard link of the CSV given as --json
 * is found by st_dev/st_ino, not only by the text. */
static void test_csv_json_same_inode(void) {
  char dir[] = "/tmp/cb-args-same-XXXXXX", csv[128], sym[128], hard[128], line[512];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(csv, sizeof csv, "%s/r.csv", dir);
  snprintf(sym, sizeof sym, "%s/sym.json", dir);
  snprintf(hard, sizeof hard, "%s/hard.json", dir);
  FILE *f = fopen(csv, "w");
  CHECK(f != NULL, "cannot create %s", csv);
  if (f) fclose(f);
  CHECK(symlink(csv, sym) == 0 && link(csv, hard) == 0, "symlink/link");
  snprintf(line, sizeof line, "allreduce --csv %s --json %s", csv, sym);
  EXPECT_ERR(line, "same file");
  snprintf(line, sizeof line, "allreduce --csv %s --json %s", csv, hard);
  EXPECT_ERR(line, "same file");
  snprintf(line, sizeof line, "allreduce --csv %s --json %s", sym, csv);
  EXPECT_ERR(line, "same file");
  snprintf(line, sizeof line, "allreduce --csv %s --json %s/other.json", csv, dir);
  EXPECT_OK(line);
  unlink(sym);
  unlink(hard);
  unlink(csv);
  rmdir(dir);
}

/* Real values are decimal, as the integers (issue 32 N21): no hex, no leading blank or '+', no
 * inf/nan, wherever a real is read (-f, -T, --drop, --routing's S and F, a range's factor). */
static void test_reals_decimal(void) {
  EXPECT_ERR("allreduce -f 0x2", "'0x2'");
  EXPECT_ERR("allreduce -f +2", "'+2'");
  EXPECT_ERR("allreduce -f inf", "'inf'");
  EXPECT_ERR("allreduce -T nan", "'nan'");
  EXPECT_ERR("allreduce -T 0x10", "'0x10'");
  EXPECT_ERR("moe --drop 0x0.1", "'0x0.1'");
  EXPECT_ERR("moe --routing hot:1:0x2", "'hot:1:0x2'");
  EXPECT_ERR("moe --routing zipf:0x1", "'zipf:0x1'");
  EXPECT_ERR("moe --tokens 128:512:0x2", "'128:512:0x2'");
  EXPECT_ERR("allreduce -n +5", "'+5'");
  EXPECT_OK("allreduce -f 1.5 -T 2e1");
  CHECK(A.timeout_s == 20.0, "-T 2e1 read as %g", A.timeout_s);
  EXPECT_OK("moe --routing hot:2:1.5 --drop .25");
  CHECK(MOE->drop == 0.25 && MOE->routing.hot_f == 1.5, "drop %g hot_f %g", MOE->drop, MOE->routing.hot_f);
  /* blanks cannot pass through parse()'s space split: the value parsers directly */
  double d = 0;
  long v = 0;
  const char *bad_reals[] = {" 2", "\t2", "2 ", "0x2", "+2", "", "-", ".", "1e", "1e+", "inf", "nan", "1,5", "1e999"};
  for (size_t i = 0; i < sizeof bad_reals / sizeof bad_reals[0]; i++)
    CHECK(cb_argp_real(bad_reals[i], &d) == -1, "real '%s' accepted", bad_reals[i]);
  const char *bad_ints[] = {" 5", "+5", "5 ", "0x5", "", "-", "5.0"};
  for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
    CHECK(cb_argp_int(bad_ints[i], -10, 10, &v) == -1, "integer '%s' accepted", bad_ints[i]);
  CHECK(cb_argp_real("-0.5e-1", &d) == 0 && d == -0.05, "-0.5e-1 read as %g", d);
  CHECK(cb_argp_int("-7", -10, 10, &v) == 0 && v == -7, "-7 read as %ld", v);
  cb_routing_t r;
  char why[256];
  CHECK(cb_routing_parse("zipf: 1", &r, why, sizeof why) == -1, "'zipf: 1' accepted");
  CHECK(cb_routing_parse("hot:1: 2", &r, why, sizeof why) == -1, "'hot:1: 2' accepted");
}

/* Sizes past 1 TiB cannot be allocated: rejected before any GPU work (2^63 bytes once planned a
 * 256-byte buffer for 2^61 floats). */
static void test_sizes_past_allocatable(void) {
  EXPECT_ERR("allreduce --sizes 9223372036854775808", "'9223372036854775808'", "1 TiB");
  EXPECT_ERR("allreduce --sizes 18446744073709551488 --inplace 1", "'18446744073709551488'", "1 TiB");
  EXPECT_ERR("allreduce --sizes 8,1025G", "'1025G'", "1 TiB");
  EXPECT_ERR("alltoall -e 2T", "'2T'", "1 TiB");
  EXPECT_ERR("allreduce -b 1099511627777", "'1099511627777'", "1 TiB");
  EXPECT_POINTS("allreduce --sizes 1T", 1024 * GiB);
}

/* The command line recorded for the metadata: a long one is cut at a character boundary. */
static void test_cmdline_cut_on_character(void) {
  static char big[9000];
  char *argv[4] = {"collbench", "allreduce", "--csv", big};
  size_t n = 0;
  while (n + 3 < sizeof big - 1) { /* 3-byte EURO signs, 8991 bytes: past the 8191 kept */
    memcpy(big + n, "\xe2\x82\xac", 3);
    n += 3;
  }
  big[n] = 0;
  cb_args_parse(4, argv, &A, err, sizeof err);
  size_t len = strlen(A.cmdline);
  CHECK(len <= sizeof A.cmdline - 1 && len > sizeof A.cmdline - 4, "cmdline length %zu", len);
  CHECK(cb_utf8_prefix(A.cmdline, len) == len, "cmdline ends inside a character");
  CHECK_EQ_INT((len - strlen("collbench allreduce --csv ")) % 3, 0);
}

int main(void) {
  test_defaults();
  test_options();
  test_moe_options();
  test_bad_input();
  test_long_tokens_value();
  test_seed_decimal();
  test_csv_json_same_file();
  test_csv_json_same_inode();
  test_reals_decimal();
  test_sizes_past_allocatable();
  test_cmdline_cut_on_character();
  return cb_test_finish("test_args");
}

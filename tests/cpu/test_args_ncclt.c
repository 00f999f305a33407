/* CPU test of nccl-tests' options on collbench's command line (launcher/args_ncclt.c): each of
 * -G -m -N -z -a -I -J -R in short, glued, long (nccl-tests' long names) and --name=value
 * form, its default, every refusal the issue names (-G 0, -G 2^64, -m -1, ...), the combinations
 * that cannot run, the one-line answer for each nccl-tests option collbench does not take, and
 * --format. */
#include <stdint.h>

#include "args.h"
#include "args_testing.h"

static void test_defaults(void) {
  EXPECT_OK("allreduce");
  CHECK_EQ_INT(A.graph_launches, 1);
  CHECK_EQ_INT(A.agg_iters, 1);
  CHECK_EQ_INT(A.cycles, 1);
  CHECK_EQ_INT(A.blocking, 0);
  CHECK_EQ_INT(A.combine, CB_COMBINE_MEAN);
  CHECK_EQ_INT(A.nccl_register, -1);
  CHECK_EQ_INT(A.format, CB_FORMAT_AUTO);
  CHECK_EQ_INT(A.ncclt_json[0], 0);
  CHECK_EQ_INT(A.modes, CB_MODE_EAGER);
}

static void test_values(void) {
  EXPECT_OK("allreduce -G 10");
  CHECK_EQ_INT(A.graph_launches, 10);
  CHECK_EQ_INT(A.modes, CB_MODE_GRAPH);
  EXPECT_OK("allreduce -G7");
  CHECK_EQ_INT(A.graph_launches, 7);
  EXPECT_OK("allreduce --cudagraph 1000000");
  CHECK_EQ_INT(A.graph_launches, 1000000);
  EXPECT_OK("allreduce --cudagraph=3 --mode both");
  CHECK_EQ_INT(A.modes, CB_MODE_EAGER | CB_MODE_GRAPH);
  CHECK_EQ_INT(A.graph_launches, 3);
  EXPECT_OK("allreduce --mode graph"); /* collbench's long form: one launch */
  CHECK_EQ_INT(A.graph_launches, 1);
  CHECK_EQ_INT(A.modes, CB_MODE_GRAPH);

  EXPECT_OK("allreduce -m 4");
  CHECK_EQ_INT(A.agg_iters, 4);
  EXPECT_OK("allreduce --agg_iters=1024");
  CHECK_EQ_INT(A.agg_iters, 1024);
  EXPECT_OK("allreduce -N 3");
  CHECK_EQ_INT(A.cycles, 3);
  EXPECT_OK("allreduce --run_cycles 2");
  CHECK_EQ_INT(A.cycles, 2);
  EXPECT_OK("allreduce -z 1");
  CHECK_EQ_INT(A.blocking, 1);
  EXPECT_OK("allreduce --blocking=0");
  CHECK_EQ_INT(A.blocking, 0);
  for (int v = 0; v <= 3; v++) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "allreduce -a %d", v);
    EXPECT_OK(cmd);
    CHECK_EQ_INT(A.combine, v);
  }
  EXPECT_OK("allreduce --average 0");
  CHECK_EQ_INT(A.combine, CB_COMBINE_RANK0);
  EXPECT_OK("allreduce -I 1");
  CHECK_EQ_INT(A.iter_timing, 1);
  EXPECT_OK("allreduce --timing iter -I 0"); /* the last one given holds */
  CHECK_EQ_INT(A.iter_timing, 0);
  EXPECT_OK("allreduce --per_iter_timing=1");
  CHECK_EQ_INT(A.iter_timing, 1);
  EXPECT_OK("allreduce -J out.json");
  CHECK_EQ_STR(A.ncclt_json, "out.json");
  EXPECT_OK("allreduce --output_file=run/nt.json --json run/cb.json");
  CHECK_EQ_STR(A.ncclt_json, "run/nt.json");
  for (int v = 0; v <= 2; v++) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "allreduce -R %d", v);
    EXPECT_OK(cmd);
    CHECK_EQ_INT(A.nccl_register, v);
    CHECK_EQ_INT(A.nalgos, 0); /* resolved against the registry at start (launcher/main.c) */
  }
  EXPECT_OK("allreduce --local_register 2");
  CHECK_EQ_INT(A.nccl_register, 2);
  EXPECT_OK("allreduce --format wide");
  CHECK_EQ_INT(A.format, CB_FORMAT_WIDE);
  EXPECT_OK("allreduce --format=rows");
  CHECK_EQ_INT(A.format, CB_FORMAT_ROWS);
  /* together, as a nccl-tests line types them */
  EXPECT_OK("allreduce -b 8 -e 128M -f 2 -G 10 -m 2 -N 2 -a 3 -w 5 -n 20 -J x.json");
  CHECK_EQ_INT(A.graph_launches, 10);
  CHECK_EQ_INT(A.agg_iters, 2);
  CHECK_EQ_INT(A.cycles, 2);
  CHECK_EQ_INT(A.combine, CB_COMBINE_MAX);
}

static void test_refusals(void) {
  EXPECT_ERR("allreduce -G 0", "-G", "'0'", "1..1000000");
  EXPECT_ERR("allreduce -G 18446744073709551616", "-G", "'18446744073709551616'");
  EXPECT_ERR("allreduce -G 1000001", "'1000001'");
  EXPECT_ERR("allreduce -G -1", "'-1'");
  EXPECT_ERR("allreduce -G ten", "'ten'");
  EXPECT_ERR("allreduce -G", "'-G'", "needs a value");
  EXPECT_ERR("allreduce -G 0x10", "'0x10'");
  EXPECT_ERR("allreduce --cudagraph=", "--cudagraph", "''");
  EXPECT_ERR("allreduce -m -1", "-m", "'-1'", "1..1024");
  EXPECT_ERR("allreduce -m 0", "'0'");
  EXPECT_ERR("allreduce -m 1025", "'1025'");
  EXPECT_ERR("allreduce -N 0", "-N", "'0'", "endless");
  EXPECT_ERR("allreduce -N 1001", "'1001'");
  EXPECT_ERR("allreduce -z 2", "-z", "'2'", "0, 1");
  EXPECT_ERR("allreduce -z 3", "'3'");
  EXPECT_ERR("allreduce -z yes", "'yes'");
  EXPECT_ERR("allreduce -a 4", "-a", "'4'", "rank 0", "mean");
  EXPECT_ERR("allreduce -a -1", "'-1'");
  EXPECT_ERR("allreduce -I 2", "-I", "'2'", "--timing");
  EXPECT_ERR("allreduce -R 3", "-R", "'3'", "nccl_symm");
  EXPECT_ERR("allreduce -R x", "'x'");
  EXPECT_ERR("allreduce -J ''", "-J", "bad file name");
  EXPECT_ERR("allreduce --format tall", "--format", "'tall'", "wide, rows");
  /* combinations */
  EXPECT_ERR("allreduce -G 5 --mode eager", "-G 5", "--mode eager");
  EXPECT_ERR("allreduce -z 1 -G 2", "-z 1", "graph");
  EXPECT_ERR("allreduce -z 1 --mode both", "-z 1", "graph");
  EXPECT_ERR("moe -m 2", "-m", "moe sweeps");
  EXPECT_ERR("ringattn -m 2", "-m", "ringattn sweeps");
  EXPECT_OK("moe -G 3 -N 2 -a 2");
  EXPECT_OK("ringattn -z 1 -N 2");
  EXPECT_ERR("allreduce -R 1 --algo nccl,oneshot", "-R", "--algo", "nccl_reg");
  EXPECT_ERR("allreduce -J a.json --csv a.json", "-J", "'a.json'");
  EXPECT_ERR("allreduce -J a.json --json a.json", "-J", "'a.json'");
  /* the same file under another spelling, or the JSON's own FILE.partial.jsonl */
  EXPECT_ERR("allreduce -J ./a.json --csv a.json", "-J", "'./a.json'");
  EXPECT_ERR("allreduce -J a.json --json ./a.json", "-J", "'a.json'");
  EXPECT_ERR("allreduce -J /proc/self/cwd/a.json --json a.json", "-J");
  EXPECT_ERR("allreduce -J a.json.partial.jsonl --json a.json", "-J", "'a.json.partial.jsonl'");
  EXPECT_OK("allreduce -J a.json --json b.json --csv c.csv");
  EXPECT_OK("allreduce -J sub/a.json --csv a.json");
}

/* Every nccl-tests option collbench does not take: one line naming it, its nccl-tests long name
 * and what does the job or that it is not offered. */
static void test_hints(void) {
  static const struct {
    const char *cmd, *want;
  } cases[] = {
      {"allreduce -t 2", "mpirun -np N"},    {"allreduce --nthreads=2", "mpirun -np N"},
      {"allreduce -p 1", "not offered"},     {"allreduce -K 2", "-w N"},
      {"allreduce -y 1", "own CUDA stream"}, {"allreduce -C 1", "GPU time"},
      {"allreduce -S 1", "--json"},          {"allreduce -x 1", "NCCL_CTA_POLICY"},
      {"allreduce -D 1", "--algo help"},     {"allreduce -V 16", "--sms"},
      {"allreduce -M 1", "mem_bytes"},       {"allreduce -u 1", "aligned"},
      {"allreduce --unalign=3", "aligned"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) EXPECT_ERR(cases[i].cmd, "nccl-tests' --", cases[i].want);
  /* collbench's own answers for the nccl-tests options it shares the letter of */
  EXPECT_ERR("allreduce -g 8", "one process per GPU", "mpirun -np N");
}

int main(void) {
  test_defaults();
  test_values();
  test_refusals();
  test_hints();
  return cb_test_finish("test_args_ncclt");
}

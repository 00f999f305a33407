/* `collbench --help` (args.h cb_args_usage): the generic options, then each family's own section
 * as its describer writes it (family.h help), then the exit codes. The family list and the
 * default data types come from the family registry, so a new family shows up here by itself;
 * docs/cli.md holds the text (tests/cpu/check_docs.py compares the two). */
#include <stdio.h>

#include "args.h"

/* "default float; moe, ringattn: bfloat16": each default data type with the families that have
 * it, the first family's without names. */
static void dtype_defaults(char *buf, size_t n) {
  size_t off = (size_t)snprintf(buf, n, "default %s", cb_dtype_name(cb_family_info(0)->default_dtype));
  for (int t = 0; t < CB_NDTYPES && off < n; t++) {
    if (t == (int)cb_family_info(0)->default_dtype) continue;
    int listed = 0;
    for (int f = 1; f < CB_NFAMILIES && off < n; f++)
      if ((int)cb_family_info((cb_family_t)f)->default_dtype == t)
        off += (size_t)snprintf(buf + off, n - off, "%s%s", listed++ ? ", " : "; ", cb_family_name((cb_family_t)f));
    if (listed && off < n) off += (size_t)snprintf(buf + off, n - off, ": %s", cb_dtype_name((cb_dtype_t)t));
  }
}

void cb_args_usage(FILE *f) {
  char families[256], dtypes[256];
  dtype_defaults(dtypes, sizeof dtypes);
  fprintf(f,
          "usage: collbench FAMILY [options]      (one MPI rank per GPU: mpirun -np N collbench ...)\n"
          "\n"
          "FAMILY: %s\n"
          "\n"
          "sizes (classic families; K/M/G/T = 2^10/2^20/2^30/2^40, as nccl-tests):\n"
          "  -b, --minbytes SIZE     first size (default 8)\n"
          "  -e, --maxbytes SIZE     last size (default 256M)\n"
          "  -f, --stepfactor F      multiply by F each step (default 2)\n"
          "  -i, --stepbytes SIZE    add SIZE each step (instead of -f)\n"
          "      --sizes LIST        explicit sizes instead of a sweep (e.g. 4,12,1032,1M)\n"
          "timing and checking:\n"
          "  -n, --iters N           timed iterations per row (default 20)\n"
          "  -w, --warmup N          warm-up iterations (default 5)\n"
          "  -c, --check N           correctness iterations on fresh random data (default 1; 0 = off)\n"
          "      --mode M            eager | graph | both (default eager; --graph = --mode graph)\n"
          "      --timing T          round: events around each round of iterations, as nccl-tests (default)\n"
          "                          iter: an event around every iteration (true p50/p99; adds ~1-4 us each)\n"
          "  -T, --timeout SEC       watchdog: abort the job if any step (setup, a round, a check, a reduction) "
          "takes longer (default 120)\n"
          "      --seed N            seed for the random inputs (default 1)\n"
          "what to run:\n"
          "  -d, --datatype LIST     float, half, bfloat16, fp8e4m3, fp8e5m2, int8, uint8, int32, uint32, int64,\n"
          "                          uint64, double, or all: every type the family takes (%s);\n"
          "                          nccl-tests' names and aliases too (int, uint, fp16, bf16, fp64, f8e4m3, ...)\n"
          "  -o, --op LIST           sum, prod, max, min, avg, or all (reducing families; default sum)\n"
          "      --inplace 0|1|both  out-of-place, in-place or both (default both where the family has it)\n"
          "      --order O           sizes: every type and op at a size, then the next size (default);\n"
          "                          types: a whole sweep of sizes per type, op and root, as nccl-tests\n"
          "      --algo LIST         algorithms to compare (default: all of the family; '--algo help' lists them)\n"
          "nccl-tests' flags, with nccl-tests' meaning (nccl-tests' long names also work: --cudagraph, ...):\n"
          "  -G N                    CUDA graph of each round of iterations, launched N times (sets --mode graph)\n"
          "  -m N                    N operations per timed iteration (one NCCL group for the NCCL baselines);\n"
          "                          time and bandwidth per operation (default 1)\n"
          "  -N N                    run the whole sweep N times (default 1)\n"
          "  -z 0|1                  1: wait for the GPU and line the ranks up after every iteration (default 0)\n"
          "  -a 0|1|2|3              a row's time over ranks: 0 rank 0's, 1 the mean (default), 2 the min, 3 the max\n"
          "  -I 0|1                  per-iteration timing: 1 = --timing iter, 0 = --timing round\n"
          "  -J FILE                 also write nccl-tests' own JSON (its -J schema) to FILE\n"
          "  -R 0|1|2                the NCCL baseline to run: nccl, nccl_reg (registered) or nccl_symm (symmetric)\n"
          "                          beside the custom algorithms (default all three)\n"
          "  (-t -p -K -y -C -S -x -D -V -M -u: a line says what does the job; -g: see mpirun -np N)\n"
          "output:\n"
          "      --format F          the table on stdout: wide (a line per size, dtype, op and mode, the algorithms\n"
          "                          side by side) or rows (a line per row); default wide on a terminal, else rows\n"
          "      --csv FILE          stream result rows to FILE (CSV; schema in docs/results-format.md)\n"
          "      --json FILE         results and run metadata as JSON (rows stream to FILE.partial.jsonl)\n"
          "placement:\n"
          "      --no-bind           keep the CPU binding the process started with\n"
          "      --sms N             the custom communication kernels use at most N SMs (1..the GPU's; also CB_SMS;\n"
          "                          not the attention block kernels); the sms column reports what each custom row "
          "used\n",
          cb_family_accepted(" | ", families, sizeof families), dtypes);
  for (int fam = 0; fam < CB_NFAMILIES; fam++)
    if (cb_family_info((cb_family_t)fam)->help) fputs(cb_family_info((cb_family_t)fam)->help, f);
  fprintf(f, "\nthe bar: every run ends with '# Avg bus bandwidth' per algorithm (the mean busbw of its rows, as\n"
             "nccl-tests); CB_MIN_BUSBW=GB/s fails a run where an algorithm's falls below it, NCCL_TESTS_MIN_BW=GB/s\n"
             "below 0.9 x it (nccl-tests' test)\n"
             "\nexit codes: 0 all correct, 1 wrong results, 2 usage, 3 runtime error, 4 timeout, 5 no suitable GPU,\n"
             "6 below the performance bar the user set (CB_MIN_BUSBW, NCCL_TESTS_MIN_BW)\n");
}

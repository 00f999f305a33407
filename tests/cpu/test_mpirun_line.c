/* launcher/mpirun_line.c: which launcher a `--version` text names (real texts of Open MPI 4 and
 * 5, PRRTE, MPICH's Hydra, Intel MPI, Slurm's srun), and the command line -g G starts with each:
 * Open MPI's --oversubscribe --bind-to none first, nothing added for the others, the -g options
 * left out and "-g 1" last. */
#include <string.h>

#include "cb_testing.h"
#include "mpirun_line.h"

static void joined(char **v, char *buf, size_t n) {
  buf[0] = 0;
  for (int i = 0; v[i]; i++) {
    if (i) strncat(buf, " ", n - strlen(buf) - 1);
    strncat(buf, v[i], n - strlen(buf) - 1);
  }
}

int main(void) {
  static const struct {
    const char *text;
    int kind;
  } kTexts[] = {
      {"mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n", CB_MPIRUN_OPENMPI},
      {"mpirun (Open MPI) 5.0.3\n\nReport bugs to https://www.open-mpi.org/community/help/\n", CB_MPIRUN_OPENMPI},
      {"prterun (PRRTE) 3.0.5\n\nReport bugs to https://github.com/openpmix/prrte\n", CB_MPIRUN_OPENMPI},
      {"mpirun (OpenRTE) 2.1.1\n", CB_MPIRUN_OPENMPI},
      {"HYDRA build details:\n    Version:                                 4.0.2\n", CB_MPIRUN_OTHER},
      {"Intel(R) MPI Library for Linux* OS, Version 2021.10 Build 20230619\n", CB_MPIRUN_OTHER},
      {"slurm 23.02.7\n", CB_MPIRUN_OTHER},
      {"", CB_MPIRUN_OTHER},
  };
  for (size_t k = 0; k < sizeof kTexts / sizeof kTexts[0]; k++)
    CHECK(cb_mpirun_kind(kTexts[k].text) == kTexts[k].kind, "text %zu: kind %d", k, cb_mpirun_kind(kTexts[k].text));
  CHECK(cb_mpirun_kind(NULL) == CB_MPIRUN_OTHER, "NULL");

  char *argv[] = {"./all_reduce_perf", "-b", "8", "-g", "4", "-e", "1M", "--ngpus=4", NULL};
  const int skip[] = {3, 4, 7};
  char *out[32], np[16], line[512];
  int n = cb_mpirun_line("mpirun", CB_MPIRUN_OPENMPI, 4, 8, argv, skip, 3, np, sizeof np, out, 32);
  joined(out, line, sizeof line);
  CHECK(n == 13, "%d arguments: %s", n, line);
  CHECK(strcmp(line, "mpirun --oversubscribe --bind-to none -np 4 ./all_reduce_perf -b 8 -e 1M -g 1") == 0, "%s", line);
  n = cb_mpirun_line("mpiexec.hydra", CB_MPIRUN_OTHER, 4, 8, argv, skip, 3, np, sizeof np, out, 32);
  joined(out, line, sizeof line);
  CHECK(n == 10 && strcmp(line, "mpiexec.hydra -np 4 ./all_reduce_perf -b 8 -e 1M -g 1") == 0, "%d: %s", n, line);
  /* the room: argc + 9 entries at most, refused below */
  CHECK(cb_mpirun_line("mpirun", CB_MPIRUN_OPENMPI, 4, 8, argv, NULL, 0, np, sizeof np, out, 17) == 16, "fits 17");
  CHECK(out[16] == NULL, "NULL-terminated");
  CHECK(cb_mpirun_line("mpirun", CB_MPIRUN_OPENMPI, 4, 8, argv, NULL, 0, np, sizeof np, out, 16) == -1, "16 refused");
  return cb_test_finish("test_mpirun_line");
}

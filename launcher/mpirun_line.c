/* Implementation of mpirun_line.h. */
#include "mpirun_line.h"

#include <stdio.h>
#include <string.h>

int cb_mpirun_kind(const char *version_text) {
  if (!version_text) return CB_MPIRUN_OTHER;
  /* Open MPI 4: "mpirun (Open MPI) 4.1.4"; Open MPI 5: "mpirun (Open MPI) 5.0.3", its prterun
   * "prterun (PRRTE) 3.0.5"; older: "mpirun (OpenRTE) 2.1.1" */
  static const char *const kOpen[] = {"(Open MPI)", "(OpenRTE)", "(PRRTE)", "Open MPI"};
  for (size_t k = 0; k < sizeof kOpen / sizeof kOpen[0]; k++)
    if (strstr(version_text, kOpen[k])) return CB_MPIRUN_OPENMPI;
  return CB_MPIRUN_OTHER;
}

int cb_mpirun_line(const char *mpirun, int kind, int ngpus, int argc, char **argv, const int *skip, int nskip,
                   char *np_buf, size_t np_n, char **out, int cap) {
  /* mpirun, 2 flags, -np G, argv0, the arguments, -g 1, NULL */
  if (cap < argc + 9) return -1;
  int n = 0;
  out[n++] = (char *)mpirun;
  if (kind == CB_MPIRUN_OPENMPI) {
    out[n++] = "--oversubscribe";
    out[n++] = "--bind-to";
    out[n++] = "none";
  }
  snprintf(np_buf, np_n, "%d", ngpus);
  out[n++] = "-np";
  out[n++] = np_buf;
  out[n++] = argv[0]; /* the drop-in name: mpirun finds it as this shell did (a path, or PATH) */
  for (int i = 1; i < argc; i++) {
    int left_out = 0;
    for (int k = 0; k < nskip; k++) left_out |= skip[k] == i;
    if (!left_out) out[n++] = argv[i];
  }
  out[n++] = "-g";
  out[n++] = "1";
  out[n] = NULL;
  return n;
}

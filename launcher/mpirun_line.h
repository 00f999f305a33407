/* The command line the drop-in's -g G starts outside an MPI launcher (ncclt_main.c):
 *   MPIRUN [--oversubscribe --bind-to none] -np G ARGV0 ARGS... -g 1
 * ARGS are the drop-in's own arguments less its -g ones. Under Open MPI (its `--version` says
 * "Open MPI", or "PRRTE" for Open MPI 5's launcher) the two flags go first: Open MPI starts no
 * more ranks than the host has slots (cores) unless told to oversubscribe, and binds each rank
 * to a core, where G ranks each driving a GPU may outnumber the cores or want another core
 * (every collbench rank binds itself near its GPU with hwloc). MPICH's and Intel MPI's
 * launchers oversubscribe and do not bind by default and know neither flag: nothing is added.
 * Pure (tests/cpu/test_mpirun_line.c). */
#ifndef CB_MPIRUN_LINE_H
#define CB_MPIRUN_LINE_H

#include <stddef.h>

enum cb_mpirun_kind { CB_MPIRUN_OTHER = 0, CB_MPIRUN_OPENMPI = 1 };

/* The kind from the launcher's `--version` text (NULL or empty: unknown, OTHER). */
int cb_mpirun_kind(const char *version_text);

/* The child's argv into out (cap entries, NULL-terminated; pointers into argv and the constants
 * here, np_buf holds "-np"'s value): skip[nskip] are the indexes of argv to leave out (the -g
 * options and their values). Returns the argument count, or -1 when cap is too small. */
int cb_mpirun_line(const char *mpirun, int kind, int ngpus, int argc, char **argv, const int *skip, int nskip,
                   char *np_buf, size_t np_n, char **out, int cap);

#endif

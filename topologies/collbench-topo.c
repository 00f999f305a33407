/* collbench-topo: shows where each rank of a collbench run goes, and writes the rankfile.
 *
 * Reads the live machine's topology or an hwloc XML file of a cluster's node type, plans one
 * rank per GPU on GPU-local cores (placement.h), and prints a table, JSON, or an Open MPI 4.1
 * rankfile for N identical hosts. collbench-run calls it; people call it to check a node type
 * before a run. Links only hwloc and libc (no MPI), so it runs on login nodes.
 *
 * Exit codes (base/error.h): 0 ok; 2 bad command line or bad input file (unreadable or
 * malformed XML, an XML without GPUs or with too few cores, more ranks than GPUs); 5 the live
 * machine cannot be planned (no GPUs, too few cores). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decimal.h"
#include "error.h"
#include "newfile.h"
#include "placement.h"
#include "topo_print.h"

#define PROG "collbench-topo"

typedef struct topo_args {
  const char *xml, *rankfile, *hosts;
  int json, gpus, ranks, fake_gpus;
  int cpu_masks; /* print srun --cpu-bind=mask_cpu masks instead of the table */
} topo_args_t;

static void usage(FILE *f) {
  fprintf(f, "usage: " PROG " [--xml FILE] [--ranks N] [--json] [--gpus]\n"
             "       " PROG " [--xml FILE] [--ranks N] --rankfile FILE --hosts HOST[,HOST...]\n"
             "       " PROG " [--xml FILE] [--ranks N] --cpu-masks\n"
             "\n"
             "Plans one collbench rank per GPU on cores local to that GPU (GPUs in PCI bus-id\n"
             "order, as CUDA_DEVICE_ORDER=PCI_BUS_ID numbers them) and prints the plan.\n"
             "\n"
             "  --xml FILE       topology from an hwloc XML file (lstopo-no-graphics --of xml)\n"
             "                   instead of this machine\n"
             "  --json           print the plan as a JSON array (one object per rank)\n"
             "  --rankfile FILE  write an Open MPI 4.1 rankfile (logical socket:core slots) for\n"
             "                   one rank per GPU on each of the --hosts, assumed identical\n"
             "                   (the table or JSON still goes to stdout)\n"
             "  --hosts LIST     comma-separated host names for --rankfile\n"
             "  --cpu-masks      print only the Slurm CPU masks, one per rank of a node, for\n"
             "                   srun --cpu-bind=mask_cpu:MASKS (hexadecimal, bit i = OS CPU i)\n"
             "  --ranks N        ranks per node (default: one per GPU; at most the GPU count)\n"
             "  --gpus           list the GPUs with all of their local cores, unsplit (works where\n"
             "                   a socket has fewer cores than GPUs; not a placement)\n"
             "  --fake-gpus N    testing aid for machines without GPUs: plan N ranks as if N GPUs\n"
             "                   were spread evenly over the NUMA nodes\n"
             "  -h, --help       this text\n"
             "\n"
             "Exit codes: 0 ok, 2 bad command line or bad input file, 5 this machine cannot be\n"
             "planned (no GPUs, too few cores).\n");
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, PROG ": ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see " PROG " --help)\n");
  return CB_EXIT_USAGE;
}

/* A decimal count 1..max (decimal.h: no blanks, sign or hex). */
static int parse_count(const char *opt, const char *s, long max, int *out) {
  long v;
  if (cb_decimal_long(s, 1, 1000000, &v)) {
    fprintf(stderr, PROG ": %s: '%s' is not a positive integer (see " PROG " --help)\n", opt, s);
    return CB_EXIT_USAGE;
  }
  if (v > max) {
    fprintf(stderr, PROG ": %s: %ld is more than %ld, the most GPUs a plan holds (see " PROG " --help)\n", opt, v, max);
    return CB_EXIT_USAGE;
  }
  *out = (int)v;
  return 0;
}

/* Accepts "--opt VALUE" and "--opt=VALUE"; *i advances past a separate value. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt) {
  size_t len = strlen(opt);
  if (strncmp(argv[*i], opt, len) == 0 && argv[*i][len] == '=') return argv[*i] + len + 1;
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

static int set_string(const char **slot, const char *opt, const char *v) {
  if (!v) return usage_error("%s needs a value", opt);
  if (*slot) return usage_error("%s given twice", opt);
  if (!*v) return usage_error("%s needs a non-empty value", opt);
  *slot = v;
  return 0;
}

static int matches(const char *arg, const char *opt) {
  size_t len = strlen(opt);
  return strncmp(arg, opt, len) == 0 && (arg[len] == 0 || arg[len] == '=');
}

static int parse_args(int argc, char **argv, topo_args_t *a) {
  int rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      usage(stdout);
      exit(CB_EXIT_OK);
    } else if (!strcmp(s, "--json")) {
      a->json = 1;
    } else if (!strcmp(s, "--cpu-masks")) {
      a->cpu_masks = 1;
    } else if (!strcmp(s, "--gpus")) {
      a->gpus = 1;
    } else if (matches(s, "--xml")) {
      rc = set_string(&a->xml, "--xml", opt_value(argc, argv, &i, "--xml"));
    } else if (matches(s, "--rankfile")) {
      rc = set_string(&a->rankfile, "--rankfile", opt_value(argc, argv, &i, "--rankfile"));
    } else if (matches(s, "--hosts")) {
      rc = set_string(&a->hosts, "--hosts", opt_value(argc, argv, &i, "--hosts"));
    } else if (matches(s, "--ranks") || matches(s, "--fake-gpus")) {
      const char *opt = matches(s, "--ranks") ? "--ranks" : "--fake-gpus";
      int *slot = matches(s, "--ranks") ? &a->ranks : &a->fake_gpus;
      const char *v = opt_value(argc, argv, &i, opt);
      if (!v) return usage_error("%s needs a value", opt);
      if (*slot) return usage_error("%s given twice", opt);
      rc = parse_count(opt, v, slot == &a->fake_gpus ? CB_TOPO_MAX_GPUS : 1000000, slot);
    } else if (s[0] == '-') {
      return usage_error("unknown option '%s'", s);
    } else {
      return usage_error("unexpected argument '%s'", s);
    }
  }
  if (rc) return rc;
  if (!a->rankfile != !a->hosts)
    return usage_error("%s", a->rankfile ? "--rankfile needs --hosts" : "--hosts needs --rankfile");
  if (a->gpus && (a->rankfile || a->fake_gpus))
    return usage_error("%s", a->rankfile ? "--gpus lists GPUs; it cannot write a rankfile"
                                         : "--gpus and --fake-gpus cannot be combined");
  if (a->cpu_masks && (a->json || a->gpus))
    return usage_error("%s", a->json ? "--cpu-masks and --json cannot be combined"
                                     : "--gpus lists GPUs; it cannot give CPU masks");
  return 0;
}

/* Splits "a,b,c" into a NULL-terminated malloc'ed array (strings point into a copy). */
static char **split_hosts(const char *list, int *nhosts, int *rc) {
  char *copy = strdup(list);
  char **hosts = calloc(strlen(list) / 2 + 2, sizeof *hosts);
  *nhosts = 0;
  *rc = 0;
  if (!copy || !hosts) {
    fprintf(stderr, PROG ": out of memory\n");
    *rc = CB_EXIT_RUNTIME;
    goto fail;
  }
  for (char *h = copy, *next; h; h = next) {
    next = strchr(h, ',');
    if (next) *next++ = 0;
    char why[512];
    if (!*h) {
      fprintf(stderr, PROG ": --hosts '%s': host names must be non-empty\n", list);
      *rc = CB_EXIT_USAGE;
      goto fail;
    }
    if (cb_rankfile_host_check(h, why, sizeof why)) {
      fprintf(stderr, PROG ": --hosts: %s\n", why);
      *rc = CB_EXIT_USAGE;
      goto fail;
    }
    for (int j = 0; j < *nhosts; j++)
      if (!strcmp(hosts[j], h)) {
        fprintf(stderr, PROG ": --hosts '%s': host '%s' is listed twice\n", list, h);
        *rc = CB_EXIT_USAGE;
        goto fail;
      }
    hosts[(*nhosts)++] = h;
  }
  return hosts;
fail:
  free(copy);
  free(hosts);
  return NULL;
}

/* Where the rankfile may go: a missing file (created), or a regular file of this user that its
 * mode lets the user write. Anything else is refused before anything is written, so a failure
 * never touches what the path named: a directory, a device node or a FIFO (which would block
 * the open), a symlink (it would be replaced without a word; its target never written), and,
 * since root passes every access() check, a file of another user or one without the owner's
 * write bit (a read-only file stays read-only, whoever runs the tool). */
static int check_rankfile_target(const char *path) {
  struct stat st;
  const char *problem = NULL;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return 0;
    problem = strerror(errno);
  } else if (S_ISLNK(st.st_mode)) problem = "it is a symbolic link (name the file itself)";
  else if (!S_ISREG(st.st_mode)) problem = "it exists and is not a regular file";
  else if (st.st_uid != geteuid()) problem = "it belongs to another user";
  else if (!(st.st_mode & S_IWUSR)) problem = "it is read-only (its mode has no write permission for its owner)";
  if (!problem) return 0;
  fprintf(stderr, PROG ": %s: cannot write rankfile: %s\n", path, problem);
  return CB_EXIT_USAGE;
}

/* The rankfile is written to a new temporary file beside it and renamed into place: on any
 * failure only that temporary file is removed, so an existing file is never deleted or left
 * half-written for mpirun to pick up. */
static int write_rankfile(const topo_args_t *a, const cb_placement_t *pl, int ranks) {
  int nhosts, rc = check_rankfile_target(a->rankfile);
  if (rc) return rc;
  char why[2048];
  char **hosts = split_hosts(a->hosts, &nhosts, &rc);
  if (!hosts) return rc;
  size_t len = strlen(a->rankfile) + sizeof ".XXXXXX";
  char *tmp = malloc(len); /* newfile.h: a new file in the same folder, never a planted name */
  int fd = -1;
  FILE *f = NULL;
  if (!tmp) {
    fprintf(stderr, PROG ": out of memory\n");
    rc = CB_EXIT_RUNTIME;
    goto done;
  }
  fd = cb_newfile_temp(a->rankfile, tmp, len);
  if (fd < 0 || !(f = cb_newfile_stream(fd))) {
    fprintf(stderr, PROG ": %s: cannot write rankfile: %s\n", a->rankfile, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    rc = CB_EXIT_USAGE;
    goto done;
  }
  if (cb_placement_write_rankfile(pl, (const char *const *)hosts, nhosts, ranks, f, why, sizeof why) != 0) {
    fprintf(stderr, PROG ": %s: %s\n", a->rankfile, why);
    fclose(f);
    rc = a->xml ? CB_EXIT_USAGE : CB_EXIT_ENV;
  } else if (fclose(f) != 0) {
    fprintf(stderr, PROG ": %s: writing the rankfile failed: %s\n", a->rankfile, strerror(errno));
    rc = CB_EXIT_RUNTIME;
  } else if (rename(tmp, a->rankfile) != 0) {
    fprintf(stderr, PROG ": %s: cannot write rankfile: %s\n", a->rankfile, strerror(errno));
    rc = CB_EXIT_USAGE;
  }
  if (rc) unlink(tmp); /* only the temporary file this call created */
done:
  free(tmp);
  free(hosts[0]);
  free(hosts);
  return rc;
}

/* --cpu-masks: the mask list on one line of stdout (collbench-run passes it to srun). */
static int print_cpu_masks(const cb_placement_t *pl, int ranks) {
  size_t n = (size_t)CB_TOPO_MAX_GPUS * (CB_TOPO_MAX_CPUS / 4 + 4);
  char why[2048], *masks = malloc(n);
  int rc = 0;
  if (!masks) {
    fprintf(stderr, PROG ": out of memory\n");
    return CB_EXIT_RUNTIME;
  }
  if (cb_placement_format_cpu_masks(pl, ranks, masks, n, why, sizeof why) != 0) {
    fprintf(stderr, PROG ": %s\n", why);
    rc = CB_EXIT_USAGE;
  } else if (printf("%s\n", masks) < 0) {
    fprintf(stderr, PROG ": writing to stdout failed\n");
    rc = CB_EXIT_RUNTIME;
  }
  free(masks);
  return rc;
}

int main(int argc, char **argv) {
  topo_args_t a = {0};
  char why[2048];
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc;
  cb_placement_t *pl = calloc(1, sizeof *pl);
  if (!pl) {
    fprintf(stderr, PROG ": out of memory\n");
    return CB_EXIT_RUNTIME;
  }
  int err = a.fake_gpus ? cb_placement_compute_fake(a.xml, a.fake_gpus, pl, why, sizeof why)
            : a.gpus    ? cb_placement_list_gpus(a.xml, pl, why, sizeof why)
                        : cb_placement_compute(a.xml, pl, why, sizeof why);
  if (err) {
    fprintf(stderr, PROG ": %s\n", why);
    rc = a.xml ? CB_EXIT_USAGE : CB_EXIT_ENV;
  } else if (a.ranks > pl->ngpus) {
    fprintf(stderr, PROG ": %s: --ranks %d but the topology has %d GPU(s)\n", pl->source, a.ranks, pl->ngpus);
    rc = CB_EXIT_USAGE;
  } else {
    int ranks = a.ranks ? a.ranks : pl->ngpus;
    if (a.rankfile) rc = write_rankfile(&a, pl, ranks);
    if (rc == 0 && a.cpu_masks) rc = print_cpu_masks(pl, ranks);
    else if (rc == 0 &&
             (a.json ? cb_topo_print_json(pl, ranks, stdout) : cb_topo_print_table(pl, ranks, stdout)) != 0) {
      fprintf(stderr, PROG ": writing to stdout failed\n");
      rc = CB_EXIT_RUNTIME;
    }
    if (rc == 0 && fflush(stdout) != 0) {
      fprintf(stderr, PROG ": writing to stdout failed: %s\n", strerror(errno));
      rc = CB_EXIT_RUNTIME;
    }
  }
  free(pl);
  return rc;
}

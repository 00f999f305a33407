/* Loading a topology, live or from an hwloc XML file, with the I/O objects kept.
 *
 * hwloc drops PCI and OS devices on load unless an I/O filter is set first, and that holds for
 * XML too: without KEEP_IMPORTANT an XML full of GPUs loads as a machine without any.
 *
 * An XML file is untrusted input, handled in three steps:
 *   1. it is read here, whole, before hwloc sees it, so that "no such file", "permission
 *      denied", "not a regular file" and "empty" are reported as such, a /proc file (size 0
 *      on stat, content on read) is read like any other, and a file past 64 MiB is refused
 *      instead of being read into memory;
 *   2. hwloc loads the bytes once in a child process: hwloc 2.9 itself crashes on some XML
 *      (an object without complete_cpuset; lstopo crashes on it too), and a crash or a hang
 *      (30 s) there becomes an error message instead of killing the caller (and leaves no core
 *      file: the child's core limit is 0);
 *   3. only bytes that loaded in the child are loaded again in this process. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "topo_internal.h"

#define CB_TOPO_XML_MAX_BYTES (64 << 20) /* the largest fixture (DGX-2) is 150 KiB */
#define CB_TOPO_PROBE_SECONDS 30

int cb_topo_fail(char *why, size_t n, const char *fmt, ...) {
  if (why && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

const char *cb_topo_name(const char *xml_path) { return xml_path ? xml_path : "live topology"; }

/* The whole file in a malloc'ed, NUL-terminated buffer, or an error naming it. */
static int read_topology_file(const char *path, char **buf, size_t *len, char *why, size_t n) {
  *buf = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* O_NONBLOCK: a FIFO must not block */
  if (fd < 0) return cb_topo_fail(why, n, "%s: cannot read topology file: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    close(fd);
    return cb_topo_fail(why, n, "%s: cannot read topology file: %s", path,
                        S_ISREG(st.st_mode) ? strerror(e) : "not a regular file");
  }
  size_t cap = 1 << 16, used = 0;
  char *b = malloc(cap + 1);
  for (;;) {
    if (!b) {
      close(fd);
      return cb_topo_fail(why, n, "%s: out of memory reading the topology file", path);
    }
    if (used == cap) {
      if (cap > CB_TOPO_XML_MAX_BYTES) break;
      cap *= 2;
      char *bigger = realloc(b, cap + 1);
      if (!bigger) free(b);
      b = bigger;
      continue;
    }
    ssize_t got = read(fd, b + used, cap - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int e = errno;
      free(b);
      close(fd);
      return cb_topo_fail(why, n, "%s: cannot read topology file: %s", path, strerror(e));
    }
    if (got == 0) break;
    used += (size_t)got;
  }
  close(fd);
  if (used > CB_TOPO_XML_MAX_BYTES) {
    free(b);
    return cb_topo_fail(why, n, "%s: not an hwloc XML topology: larger than %d MiB", path, CB_TOPO_XML_MAX_BYTES >> 20);
  }
  if (used == 0) {
    free(b);
    return cb_topo_fail(why, n, "%s: not an hwloc XML topology: the file is empty", path);
  }
  b[used] = 0;
  *buf = b;
  *len = used;
  return 0;
}

/* hwloc_topology_init + KEEP_IMPORTANT + (XML bytes, when xml is not NULL) + load. */
static int load(const char *name, const char *xml, size_t len, hwloc_topology_t *out, char *why, size_t n) {
  hwloc_topology_t t;
  *out = NULL;
  if (hwloc_topology_init(&t) != 0)
    return cb_topo_fail(why, n, "%s: hwloc_topology_init failed: %s", name, strerror(errno));
  if (hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) {
    cb_topo_fail(why, n, "%s: hwloc_topology_set_io_types_filter failed: %s", name, strerror(errno));
    goto fail;
  }
  /* hwloc 2 parses the bytes here already; EINVAL means malformed or not hwloc XML. The
   * length counts the terminating NUL, as hwloc's own XML buffers do. */
  if (xml && hwloc_topology_set_xmlbuffer(t, xml, (int)len + 1) != 0) {
    cb_topo_fail(why, n, "%s: not a valid hwloc XML topology (hwloc_topology_set_xmlbuffer: %s)", name,
                 strerror(errno));
    goto fail;
  }
  errno = 0;
  if (hwloc_topology_load(t) != 0) {
    if (xml)
      cb_topo_fail(why, n, "%s: not a valid hwloc XML topology (hwloc_topology_load: %s)", name,
                   errno ? strerror(errno) : "parse error");
    else cb_topo_fail(why, n, "%s: hwloc_topology_load failed: %s", name, strerror(errno));
    goto fail;
  }
  *out = t;
  return 0;
fail:
  hwloc_topology_destroy(t);
  return -1;
}

enum { PROBE_LOADED = 10, PROBE_REFUSED = 11 };

/* Loads the XML bytes in a child process and reports whether hwloc survived it. The child
 * restores the default handlers of the crash signals (a sanitizer's or fuzzer's handler would
 * turn a crash into an ordinary exit) and keeps quiet: the parent repeats the load and prints
 * what hwloc says. Any end other than PROBE_LOADED / PROBE_REFUSED counts as a crash. */
static int probe_in_child(const char *name, const char *xml, size_t len, char *why, size_t n) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return cb_topo_fail(why, n, "%s: cannot start the XML check (fork: %s)", name, strerror(errno));
  if (pid == 0) {
    static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++) signal(crash_signals[i], SIG_DFL);
    /* the crash is expected and reported: no core file of it in the working folder */
    const struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    hwloc_topology_t t;
    char ignored[8];
    if (load(name, xml, len, &t, ignored, sizeof ignored) != 0) _exit(PROBE_REFUSED);
    hwloc_topology_destroy(t);
    _exit(PROBE_LOADED);
  }
  int status = 0;
  const struct timespec tick = {0, 1000000}; /* 1 ms */
  for (long waited_ms = 0;; waited_ms++) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (got < 0 && errno != EINTR) return cb_topo_fail(why, n, "%s: XML check: waitpid: %s", name, strerror(errno));
    if (waited_ms >= CB_TOPO_PROBE_SECONDS * 1000L) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return cb_topo_fail(why, n, "%s: not a usable hwloc XML topology: hwloc did not finish reading it in %d s", name,
                          CB_TOPO_PROBE_SECONDS);
    }
    nanosleep(&tick, NULL);
  }
  if (WIFEXITED(status) && (WEXITSTATUS(status) == PROBE_LOADED || WEXITSTATUS(status) == PROBE_REFUSED)) return 0;
  if (WIFSIGNALED(status))
    return cb_topo_fail(why, n, "%s: not a usable hwloc XML topology: hwloc crashed reading it (signal %d, %s)", name,
                        WTERMSIG(status), strsignal(WTERMSIG(status)));
  return cb_topo_fail(why, n, "%s: not a usable hwloc XML topology: hwloc failed reading it (exit %d)", name,
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int cb_topo_load(const char *xml_path, hwloc_topology_t *out, char *why, size_t n) {
  const char *name = cb_topo_name(xml_path);
  *out = NULL;
  if (!xml_path) return load(name, NULL, 0, out, why, n);
  char *xml;
  size_t len;
  if (read_topology_file(xml_path, &xml, &len, why, n) != 0) return -1;
  int rc = probe_in_child(name, xml, len, why, n);
  if (rc == 0) rc = load(name, xml, len, out, why, n);
  free(xml);
  return rc;
}

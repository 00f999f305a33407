/* Loading a topology, live or from an hwloc XML file, with the I/O objects kept.
 *
 * hwloc drops PCI and OS devices on load unless an I/O filter is set first, and that holds for
 * XML too: without KEEP_IMPORTANT an XML full of GPUs loads as a machine without any. The XML
 * file is opened here before hwloc sees it, so that "no such file" and "permission denied" are
 * reported as such instead of as a parse failure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "topo_internal.h"

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

/* A readable regular file, or an error naming it. */
static int check_readable(const char *path, char *why, size_t n) {
  struct stat st;
  if (stat(path, &st) != 0)
    return cb_topo_fail(why, n, "%s: cannot read topology file: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return cb_topo_fail(why, n, "%s: cannot read topology file: not a regular file", path);
  FILE *f = fopen(path, "r");
  if (!f) return cb_topo_fail(why, n, "%s: cannot read topology file: %s", path, strerror(errno));
  if (fclose(f) != 0)
    return cb_topo_fail(why, n, "%s: cannot read topology file: %s", path, strerror(errno));
  if (st.st_size == 0)
    return cb_topo_fail(why, n, "%s: not an hwloc XML topology: the file is empty", path);
  return 0;
}

int cb_topo_load(const char *xml_path, hwloc_topology_t *out, char *why, size_t n) {
  hwloc_topology_t t;
  const char *name = cb_topo_name(xml_path);
  *out = NULL;
  if (xml_path && check_readable(xml_path, why, n) != 0) return -1;
  if (hwloc_topology_init(&t) != 0)
    return cb_topo_fail(why, n, "%s: hwloc_topology_init failed: %s", name, strerror(errno));
  if (hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) {
    cb_topo_fail(why, n, "%s: hwloc_topology_set_io_types_filter failed: %s", name,
                 strerror(errno));
    goto fail;
  }
  /* hwloc 2 parses the file here already; EINVAL means malformed or not hwloc XML. */
  if (xml_path && hwloc_topology_set_xml(t, xml_path) != 0) {
    cb_topo_fail(why, n, "%s: not a valid hwloc XML topology (hwloc_topology_set_xml: %s)", name,
                 strerror(errno));
    goto fail;
  }
  errno = 0;
  if (hwloc_topology_load(t) != 0) {
    if (xml_path)
      cb_topo_fail(why, n, "%s: not a valid hwloc XML topology (hwloc_topology_load: %s)", name,
                   errno ? strerror(errno) : "parse error");
    else
      cb_topo_fail(why, n, "%s: hwloc_topology_load failed: %s", name, strerror(errno));
    goto fail;
  }
  *out = t;
  return 0;
fail:
  hwloc_topology_destroy(t);
  return -1;
}

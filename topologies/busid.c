/* PCI bus ids in one spelling.
 *
 * The same GPU is "0000:00:06.0" to CUDA (cudaDeviceGetPCIBusId, upper-case hex on some
 * drivers), "00000000:00:06.0" to nvidia-smi (32-bit domain) and "00:06.0" to lspci; hwloc
 * prints "%04x:%02x:%02x.%01x". Everything is compared in hwloc's spelling. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "placement.h"

/* One hex field of at most maxdigits digits ending at `stop`; advances *s past the stop. */
static int hex_field(const char **s, int maxdigits, char stop, unsigned long *v) {
  const char *p = *s;
  int nd = 0;
  unsigned long x = 0;
  while (isxdigit((unsigned char)*p) && nd <= maxdigits) {
    x = x * 16 + (unsigned long)(isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10);
    p++;
    nd++;
  }
  if (nd == 0 || nd > maxdigits || *p != stop) return -1;
  *v = x;
  *s = stop ? p + 1 : p;
  return 0;
}

int cb_busid_normalize(const char *in, char *out, size_t n) {
  unsigned long dom = 0, bus, dev, fn;
  const char *s = in;
  int colons = 0;
  if (!in || !out || n == 0) return -1;
  for (const char *p = in; *p; p++) colons += *p == ':';
  if (colons == 2 && hex_field(&s, 8, ':', &dom) != 0) return -1;
  if (colons != 1 && colons != 2) return -1;
  /* PCI limits: 256 buses, 32 devices, 8 functions. */
  if (hex_field(&s, 2, ':', &bus) != 0 || hex_field(&s, 2, '.', &dev) != 0 || hex_field(&s, 1, '\0', &fn) != 0 ||
      dev > 0x1f || fn > 7)
    return -1;
  int w = snprintf(out, n, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
  return (w < 0 || (size_t)w >= n) ? -1 : 0;
}

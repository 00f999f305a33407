/* CPU test of the NIC line rates a multi-node run records (launcher/hw_limits.c cb_nic_limits):
 * folders laid out like sysfs in a temporary directory. InfiniBand ports win over Ethernet and
 * come in name order as DEV:PORT with their rate in GB/s ("200 Gb/sec (4X HDR)" -> 25); a rate
 * that cannot be read (garbage, a missing file) is unknown (-1), never a guess; without
 * InfiniBand every up Ethernet interface but lo counts (Mb/s / 8000), a down one does not, and
 * "-1" (what a virtual interface gives) is unknown; more ports than the room given are flagged;
 * a root without class/ has none. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cb_testing.h"
#include "hw_limits.h"

/* root/rel with its parent folders; text written unless NULL (then only the folders). */
static void put(const char *root, const char *rel, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen(root) + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(path, 0755);
    *p = '/';
  }
  if (!text) {
    mkdir(path, 0755);
    return;
  }
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static void check_nic(const cb_nic_limit_t *n, const char *name, double gbs) {
  CHECK(strcmp(n->name, name) == 0, "NIC %s, expected %s", n->name, name);
  CHECK(fabs(n->gbs - gbs) < 1e-9, "NIC %s: %g GB/s, expected %g", n->name, n->gbs, gbs);
}

static void infiniband(const char *root) {
  put(root, "class/infiniband/mlx5_1/ports/2/rate", "garbage\n");
  put(root, "class/infiniband/mlx5_1/ports/1/rate", "100 Gb/sec (4X EDR)\n");
  put(root, "class/infiniband/mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)\n");
  put(root, "class/infiniband/mlx5_2/ports/1", NULL); /* a port without its rate file */
  put(root, "class/net/eth0/operstate", "up\n");      /* left out: InfiniBand is there */
  put(root, "class/net/eth0/speed", "100000\n");
  cb_nic_limit_t nics[8];
  int more = 1, n = cb_nic_limits(root, nics, 8, &more);
  CHECK_EQ_INT(n, 4);
  CHECK_EQ_INT(more, 0);
  if (n == 4) {
    check_nic(&nics[0], "mlx5_0:1", 25);
    check_nic(&nics[1], "mlx5_1:1", 12.5);
    check_nic(&nics[2], "mlx5_1:2", -1);
    check_nic(&nics[3], "mlx5_2:1", -1);
  }
  n = cb_nic_limits(root, nics, 2, &more);
  CHECK(n == 2 && more == 1, "room for 2: %d NICs, more %d", n, more);
}

static void ethernet(const char *root) {
  put(root, "class/net/lo/operstate", "up\n");
  put(root, "class/net/lo/speed", "10000\n");
  put(root, "class/net/eth1/operstate", "down\n");
  put(root, "class/net/eth1/speed", "25000\n");
  put(root, "class/net/eth0/operstate", "up\n");
  put(root, "class/net/eth0/speed", "400000\n");
  put(root, "class/net/eth2/operstate", "up\n");
  put(root, "class/net/eth2/speed", "-1\n");
  put(root, "class/net/eth3/operstate", "up\n"); /* no speed file: a read error */
  cb_nic_limit_t nics[8];
  int more = 1, n = cb_nic_limits(root, nics, 8, &more);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(more, 0);
  if (n == 3) {
    check_nic(&nics[0], "eth0", 50);
    check_nic(&nics[1], "eth2", -1);
    check_nic(&nics[2], "eth3", -1);
  }
}

int main(void) {
  char ib[] = "/tmp/cb_nic_ib_XXXXXX", eth[] = "/tmp/cb_nic_eth_XXXXXX", none[] = "/tmp/cb_nic_none_XXXXXX";
  CHECK(mkdtemp(ib) && mkdtemp(eth) && mkdtemp(none), "mkdtemp failed");
  infiniband(ib);
  ethernet(eth);
  cb_nic_limit_t nics[2];
  int more = 1;
  CHECK_EQ_INT(cb_nic_limits(none, nics, 2, &more), 0);
  CHECK_EQ_INT(more, 0);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", ib, eth, none);
  CHECK(system(cmd) == 0, "%s failed", cmd);
  return cb_test_finish("test_nic_limits");
}

/* Implementation of attn_save_dir.h. */
#include "attn_save_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cb_attn_save_open_row(const char *dir, const char *sub, char *why, size_t n) {
  char name[1100];
  snprintf(name, sizeof name, "%s", dir);
  size_t len = strlen(name);
  while (len > 1 && name[len - 1] == '/') name[--len] = 0; /* "link/" would follow the link */
  if (mkdir(name, 0777) && errno != EEXIST) {
    snprintf(why, n, "cannot create '%s': %s", dir, strerror(errno));
    return -1;
  }
  int dfd = open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (dfd < 0 || fstat(dfd, &st)) {
    snprintf(why, n, "cannot open '%s' (a symlink is not followed): %s", dir, strerror(errno));
    if (dfd >= 0) close(dfd);
    return -1;
  }
  if (st.st_uid != geteuid()) {
    snprintf(why, n, "'%s' belongs to user %u, not to this process: someone else made it after the start check", dir,
             (unsigned)st.st_uid);
    close(dfd);
    return -1;
  }
  int rfd = -1;
  if (mkdirat(dfd, sub, 0777) == 0) rfd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (rfd < 0)
    snprintf(why, n, "cannot create the new folder '%s/%s': %s", dir, sub,
             errno == EEXIST ? "something is already there" : strerror(errno));
  close(dfd);
  return rfd;
}

FILE *cb_attn_save_create(int rowfd, const char *shown, const char *name, char *why, size_t n) {
  int fd = openat(rowfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
  if (!f) {
    snprintf(why, n, "cannot create '%s/%s': %s", shown, name, strerror(errno));
    if (fd >= 0) close(fd);
  }
  return f;
}

/* Implementation of newfile.h. */
#include "newfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mix64.h"

int cb_newfile_check_target(const char *path, const char *what, char *why, size_t n) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return 0;
    snprintf(why, n, "%s '%s': %s", what, path, strerror(errno));
    return -1;
  }
  if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) return 0;
  snprintf(why, n, "%s '%s': it exists and is %s, not a regular file", what, path,
           S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket");
  return -1;
}

int cb_newfile_temp(const char *path, char *tmp, size_t n) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t seed = cb_mix64(((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40));
  for (int attempt = 0; attempt < 1000; attempt++) {
    uint64_t r = cb_mix64(seed + (uint64_t)attempt);
    char suffix[7];
    for (int i = 0; i < 6; i++, r /= 62) suffix[i] = letters[r % 62];
    suffix[6] = 0;
    if ((size_t)snprintf(tmp, n, "%s.%s", path, suffix) >= n) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

FILE *cb_newfile_replace(const char *path) {
  char tmp[4200];
  int fd = cb_newfile_temp(path, tmp, sizeof tmp);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "w");
  if (f && rename(tmp, path) == 0) return f;
  int e = errno;
  if (f) fclose(f);
  else close(fd);
  unlink(tmp);
  errno = e;
  return NULL;
}

/* Implementation of newfile.h. The size cap rides on a glibc cookie stream (fopencookie): the
 * stream counts what it hands to write(2). */
#define _GNU_SOURCE
#include "newfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

typedef struct {
  int fd;
  size_t written;
} capped_t;

static ssize_t capped_write(void *cookie, const char *buf, size_t n) {
  capped_t *c = cookie;
  if (n > CB_NEWFILE_MAX_BYTES - c->written) {
    errno = EFBIG;
    return 0; /* fopencookie: 0 is an error (a negative value is not allowed) */
  }
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(c->fd, buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += (size_t)w;
  }
  c->written += done;
  return (ssize_t)done;
}

static int capped_close(void *cookie) {
  capped_t *c = cookie;
  int rc = close(c->fd);
  free(c);
  return rc;
}

FILE *cb_newfile_stream(int fd) {
  capped_t *c = malloc(sizeof *c);
  if (!c) return NULL;
  c->fd = fd;
  c->written = 0;
  FILE *f = fopencookie(c, "w", (cookie_io_functions_t){.write = capped_write, .close = capped_close});
  if (!f) free(c);
  return f;
}

FILE *cb_newfile_replace(const char *path) {
  struct stat st;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
    errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST; /* never replaced (newfile.h) */
    return NULL;
  }
  char tmp[4200];
  int fd = cb_newfile_temp(path, tmp, sizeof tmp);
  if (fd < 0) return NULL;
  FILE *f = cb_newfile_stream(fd);
  if (f && rename(tmp, path) == 0) return f;
  int e = errno;
  if (f) fclose(f);
  else close(fd);
  unlink(tmp);
  errno = e;
  return NULL;
}

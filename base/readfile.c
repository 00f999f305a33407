/* Implementation of readfile.h. */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

/* O_NONBLOCK: opening a FIFO must not wait for a writer (fstat refuses it right after). */
static int open_nofollow(const char *path) { return open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK); }

/* 0 when buf[0..len) holds no NUL and is valid UTF-8; else -1 with the byte offset in *at */
static int check_text(const char *buf, size_t len, int *nul, size_t *at) {
  for (size_t i = 0; i < len;) {
    if (buf[i] == 0) {
      *nul = 1;
      *at = i;
      return -1;
    }
    if ((unsigned char)buf[i] < 0x80) {
      i++;
      continue;
    }
    size_t k = cb_utf8_seq_len(buf + i); /* stops at the terminating NUL: never reads past len */
    if (k == 0) {
      *nul = 0;
      *at = i;
      return -1;
    }
    i += k;
  }
  return 0;
}

int cb_readfile(const char *path, const char *what, size_t cap, char **text, size_t *len, char *err, size_t n) {
  *text = NULL;
  *len = 0;
  if (!path || !path[0]) {
    snprintf(err, n, "%s: no file name given", what);
    return -1;
  }
  int fd = open_nofollow(path);
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP)
      snprintf(err, n, "%s '%s' is a symbolic link: give the file itself (links are not followed)", what, path);
    else snprintf(err, n, "%s '%s': cannot open: %s", what, path, strerror(e));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(err, n, "%s '%s' is not a regular file", what, path);
    close(fd);
    return -1;
  }
  if ((unsigned long long)st.st_size > (unsigned long long)cap) {
    snprintf(err, n, "%s '%s' is %lld bytes, more than the %zu bytes collbench reads", what, path,
             (long long)st.st_size, cap);
    close(fd);
    return -1;
  }
  /* read until EOF, one byte past the cap at most: a file that grows while read is caught too */
  size_t room = (size_t)st.st_size + 1, got = 0;
  char *buf = malloc(room + 1);
  if (!buf) {
    snprintf(err, n, "%s '%s': out of host memory", what, path);
    close(fd);
    return -1;
  }
  for (;;) {
    if (got == room) {
      if (got > cap) break;
      char *bigger = realloc(buf, 2 * room + 1);
      if (!bigger) {
        snprintf(err, n, "%s '%s': out of host memory", what, path);
        free(buf);
        close(fd);
        return -1;
      }
      buf = bigger;
      room *= 2;
    }
    ssize_t r = read(fd, buf + got, room - got);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r < 0) {
      snprintf(err, n, "%s '%s': read failed: %s", what, path, strerror(errno));
      free(buf);
      close(fd);
      return -1;
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (got > cap) {
    snprintf(err, n, "%s '%s' is more than the %zu bytes collbench reads", what, path, cap);
    free(buf);
    return -1;
  }
  buf[got] = 0;
  int nul = 0;
  size_t at = 0;
  if (check_text(buf, got, &nul, &at)) {
    snprintf(err, n, "%s '%s': %s at byte %zu: not a text file", what, path, nul ? "a NUL byte" : "invalid UTF-8", at);
    free(buf);
    return -1;
  }
  *text = buf;
  *len = got;
  return 0;
}

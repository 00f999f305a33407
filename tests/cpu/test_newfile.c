/* The C writer (base/newfile.h) against what a hostile results folder holds: a symlink at the
 * name is replaced and its target untouched, a FIFO, a device or a folder at the name is
 * refused and left as it was, and a stream stops at CB_NEWFILE_MAX_BYTES (EFBIG, the error
 * reported by fclose) without writing past it. Works in a fresh mkdtemp folder. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cb_testing.h"
#include "newfile.h"

static char dir[] = "/tmp/cb-newfile-XXXXXX";

static const char *at(const char *name) {
  static char path[4][256];
  static int k;
  k = (k + 1) % 4;
  snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
  return path[k];
}

static int file_is(const char *path, const char *text) {
  char buf[256] = {0};
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  return n == strlen(text) && memcmp(buf, text, n) == 0;
}

int main(void) {
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  /* a symlink at the name: replaced by a new regular file, its target untouched */
  FILE *t = fopen(at("target"), "w");
  fputs("precious\n", t);
  fclose(t);
  CHECK(symlink(at("target"), at("link")) == 0, "symlink");
  FILE *f = cb_newfile_replace(at("link"));
  CHECK(f != NULL, "replace a symlink: %s", strerror(errno));
  if (f) {
    fputs("new\n", f);
    CHECK(fclose(f) == 0, "fclose");
  }
  struct stat st;
  CHECK(lstat(at("link"), &st) == 0 && S_ISREG(st.st_mode), "the link became a regular file");
  CHECK(file_is(at("link"), "new\n") && file_is(at("target"), "precious\n"), "the link's target was written");

  /* a FIFO, a folder or a device at the name: refused, left as it was */
  CHECK(mkfifo(at("fifo"), 0600) == 0, "mkfifo");
  CHECK(mkdir(at("folder"), 0700) == 0, "mkdir");
  const char *kept[] = {at("fifo"), at("folder"), "/dev/null"};
  for (int i = 0; i < 3; i++) {
    errno = 0;
    f = cb_newfile_replace(kept[i]);
    CHECK(f == NULL && (errno == EEXIST || errno == EISDIR), "%s: replaced (errno %d)", kept[i], errno);
    if (f) fclose(f);
    char why[512];
    CHECK(cb_newfile_check_target(kept[i], "output", why, sizeof why) == -1, "%s: accepted as a target", kept[i]);
  }
  CHECK(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
  CHECK(lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is still a device");

  /* the size cap: writes up to it succeed, the one past it fails and is not written */
  f = cb_newfile_replace(at("big"));
  CHECK(f != NULL, "a new file");
  if (f) {
    static char chunk[1 << 16];
    memset(chunk, 'x', sizeof chunk);
    size_t total = 0;
    while (total + sizeof chunk <= CB_NEWFILE_MAX_BYTES && fwrite(chunk, 1, sizeof chunk, f) == sizeof chunk)
      total += sizeof chunk;
    CHECK_EQ_INT(total, CB_NEWFILE_MAX_BYTES);
    CHECK(fflush(f) == 0, "flushing up to the cap");
    fputs("one byte too many\n", f);
    errno = 0;
    int rc = fflush(f);
    CHECK(rc != 0 && errno == EFBIG, "a write past the cap: fflush %d errno %d", rc, errno);
    CHECK(fclose(f) != 0 || rc != 0, "the error reaches the caller");
    CHECK(stat(at("big"), &st) == 0 && (size_t)st.st_size == CB_NEWFILE_MAX_BYTES, "size %lld", (long long)st.st_size);
  }
  unlink(at("big"));
  unlink(at("link"));
  unlink(at("target"));
  unlink(at("fifo"));
  rmdir(at("folder"));
  rmdir(dir);
  return cb_test_finish("newfile");
}

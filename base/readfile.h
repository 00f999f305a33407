/* The one C reader of input files (an alltoallv traffic matrix today; any file a user names
 * tomorrow). A file a user names is hostile until read: it may be a symlink planted to a device
 * (/dev/zero never ends), a FIFO (open blocks), a directory, a file of gigabytes, or text with NUL
 * or broken UTF-8 that a parser would misread. This reader opens with O_NOFOLLOW (the last
 * component may not be a symlink), takes regular files only (fstat), caps the size, reads the
 * whole file and refuses NUL bytes and invalid UTF-8, each with one line naming the file. The
 * parsers on top see a NUL-terminated string of valid UTF-8 text. Plain libc. */
#ifndef CB_READFILE_H
#define CB_READFILE_H

#include <stddef.h>

/* Reads path whole into *text (malloc'd, NUL-terminated, *len bytes before the NUL; free() it).
 * what names the file's role in the error ("--counts matrix file"). Returns 0, or -1 with one
 * line in err (nothing allocated): missing, a symlink, not a regular file, larger than cap
 * bytes, unreadable, holding a NUL byte or invalid UTF-8. */
int cb_readfile(const char *path, const char *what, size_t cap, char **text, size_t *len, char *err, size_t n);

#endif

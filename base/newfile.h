/* Output files created so that nobody else's name is ever written through: every file
 * collbench and collbench-topo write is first created as a new file in its final folder
 * (O_CREAT|O_EXCL|O_NOFOLLOW: a file or symlink someone planted at that name is never opened)
 * and then renamed over the final name, which replaces a symlink there instead of following
 * it; a folder, device, FIFO or socket at the name is never replaced; and the stream refuses
 * to grow past CB_NEWFILE_MAX_BYTES, the most any reader of the tree takes, so a runaway
 * writer cannot fill the disk with a file nothing would read. The one C writer of the tree:
 * tests/layers/check_writers.py fails on any other write in launcher/. Plain libc, no MPI:
 * collbench-topo links it. */
#ifndef CB_NEWFILE_H
#define CB_NEWFILE_H

#include <stddef.h>
#include <stdio.h>

/* The size cap of a file written through a cb_newfile stream: the readers' (plots/cbcsv.py
 * CSV_MAX_BYTES, plots/cbmeta.py META_MAX_BYTES, plots/outfile.py MAX_BYTES). */
#define CB_NEWFILE_MAX_BYTES ((size_t)64 << 20)

/* Whether a new file may be renamed onto path: 0 when nothing is there, or a regular file, or a
 * symbolic link (the link itself is replaced, its target never touched); -1 with why ("WHAT
 * 'PATH': ...") for a directory, a device, a FIFO or a socket, which must never be replaced,
 * or when path cannot be examined. */
int cb_newfile_check_target(const char *path, const char *what, char *why, size_t n);

/* Creates a new, empty file beside path (same folder, so the rename onto path is atomic):
 * "PATH.XXXXXX" with random letters, O_CREAT|O_EXCL|O_NOFOLLOW, another name tried when one is
 * taken; its mode is 0666 less the umask, as a plain fopen(path, "w") would give. Returns the
 * descriptor (O_WRONLY, close-on-exec) with the name in tmp (n bytes), or -1 with errno. */
int cb_newfile_temp(const char *path, char *tmp, size_t n);

/* A write stream on fd (a cb_newfile_temp descriptor) that takes at most CB_NEWFILE_MAX_BYTES
 * in all: a write past it fails with EFBIG (the stream's error flag set, fflush/fclose report
 * it) and nothing of it is written. fclose closes fd. NULL with errno (fd left open). */
FILE *cb_newfile_stream(int fd);

/* cb_newfile_temp renamed over path at once, for a file written while the run goes on (rows
 * streamed as they finish): the capped stream, or NULL with errno (nothing left behind;
 * EISDIR or EEXIST when a folder, device, FIFO or socket is at path). */
FILE *cb_newfile_replace(const char *path);

#endif

"""The one writer of plots/ and tools/ (Python): every file they write is created as a new file
in its final folder and renamed over its name, never written through a name someone planted.
tests/layers/check_writers.py fails on any other write in plots/, tools/ and launcher/.

A results folder can come from anywhere (copied, unpacked, cloned: git keeps symlinks), so a
symlink or a FIFO may sit at any name the tools write. write_new():
- refuses a name where a folder, a device, a FIFO or a socket sits (renaming over /dev/null
  would replace the device node), before anything is created;
- refuses more than cap bytes (MAX_BYTES: what plots/infile.py's readers take at most), before
  anything is created;
- writes a fresh temporary file beside the name (tempfile: O_CREAT|O_EXCL, a random name, in the
  same folder so that the rename is atomic) and renames it over the name, which replaces a
  symlink there instead of following it.
What is there before a rewrite is read by plots/infile.py (read_replaced: a symlink reads as
absent).
"""
import errno
import os
import stat
import tempfile

MAX_BYTES = 64 << 20  # the readers' cap (plots/cbcsv.py CSV_MAX_BYTES, plots/cbmeta.py META_MAX_BYTES)


def check_target(path):
    """Raises OSError unless path may be replaced: nothing there, a regular file or a symlink
    (the link itself is replaced, its target never touched)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OSError(errno.EEXIST, "a device, FIFO or socket is there (never replaced)", path)


def write_new(path, data, cap=MAX_BYTES):
    """Writes data (str: UTF-8, a path's undecodable bytes as \\xNN escapes; or bytes) to path
    as a new file: a temporary file in the same folder, renamed over the name. Raises OSError:
    IsADirectoryError for a folder at the name, EEXIST for a device, FIFO or socket there, EFBIG
    for more than cap bytes, or what creating and writing the file gave."""
    if isinstance(data, str):
        data = data.encode("utf-8", "backslashreplace")
    if len(data) > cap:
        raise OSError(errno.EFBIG, f"{len(data)} bytes, more than the {cap >> 20} MiB cap of a file written here",
                      path)
    check_target(path)
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

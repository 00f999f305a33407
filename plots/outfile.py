"""Output files of plots/ created as new files, never written through a name someone planted.

A results folder can come from anywhere (copied, unpacked, cloned: git keeps symlinks), so a
symlink or a FIFO may sit at any name the tools write. write_new() writes a fresh temporary file
beside the target (tempfile: O_CREAT|O_EXCL, a random name) and renames it over the name, which
replaces a symlink instead of following it. read_existing() reads the current file only when it
is a regular file, without following a symlink (a planted one reads as absent).
"""
import os
import stat
import tempfile


def read_existing(path, limit):
    """Text of the regular file at path (at most limit bytes, UTF-8 with replacement), "" when
    there is none or something else (a symlink, a FIFO, a folder) sits there. OSError otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return ""
    except OSError as e:
        if os.path.islink(path):
            return ""
        raise e
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return ""
        return f.read(limit).decode("utf-8", "replace")


def write_new(path, text):
    """Writes text (UTF-8; a path's undecodable bytes as \\xNN escapes) to path as a new file: a temporary file in the same folder, renamed over
    the name. A folder at the name is an error (IsADirectoryError). Raises OSError."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(path) and not os.path.islink(path):
        raise IsADirectoryError(21, "Is a directory", path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(text)
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

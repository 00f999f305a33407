#!/usr/bin/env python3
"""The layer check: no source file includes a header from a higher layer.

Layers, lowest first (docs/architecture.md, "Layers"):
    base/         checked calls, error exits, environment knobs, string buffer, shared limits
    kernels/      device code and its launchers             (may include base)
    cudnn/        the cuDNN binding, beside kernels         (may include base)
    collectives/  host side of the algorithms, world, peer  (may include kernels, cudnn, base)
    topologies/   placement, beside collectives             (may include base)
    launcher/     the program                               (may include everything above)
tests/ may include any layer.

Every quoted include is by plain name ("error.h", never "../launcher/error.h"): the build gives
each target its layer's folder and the folders below it as include directories. A name is
resolved the way the compiler does for this tree: the including file's own folder first, then
the layer folders; a header name found in two layer folders is an error (the compiler would
pick one silently). Unresolved names fail too, except headers the build generates. A layer
header may not carry the name of an ISO C or POSIX header (SYSTEM_HEADERS): every file with that
folder on its include path would get ours for the C library's (kernels/signal.h did: a test's
<sys/wait.h> includes <signal.h>).

The build lists its files (no globs), so the check also fails when a .c or .cu file of a layer
folder is not named in that folder's CMakeLists.txt (a sub-folder's, such as collectives/attn/,
where it has one): a file added but not listed would otherwise be left out of the build without
a word.

Usage: check_layers.py ROOT          check the tree at ROOT (exit 1 on any violation)
       check_layers.py --self-test   prove the check fails on a planted violation"""
import os
import re
import sys

import tree_check

ALLOWED = {
    "base": {"base"},
    "kernels": {"kernels", "base"},
    "cudnn": {"cudnn", "base"},
    "collectives": {"collectives", "kernels", "cudnn", "base"},
    "topologies": {"topologies", "base"},
    "launcher": {"launcher", "collectives", "kernels", "cudnn", "topologies", "base"},
}
GENERATED = {"cb_gitrev.h"}  # written into the build tree by launcher/gitrev.cmake
# ISO C11's headers and POSIX.1-2017's flat ones: names no layer header may take
SYSTEM_HEADERS = set("""assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal
    stdalign stdarg stdatomic stdbool stddef stdint stdio stdlib stdnoreturn string tgmath threads time uchar
    wchar wctype aio cpio dirent dlfcn fcntl fmtmsg fnmatch ftw glob grp iconv langinfo libgen monetary mqueue
    ndbm netdb nl_types poll pthread pwd regex sched search semaphore spawn strings stropts syslog tar termios
    trace ulimit unistd utime utmpx wordexp""".split())
SOURCE_EXT = (".c", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def sources(root, top):
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for name in sorted(names):
            if name.endswith(SOURCE_EXT):
                yield os.path.join(dirpath, name)


def check(root):
    """Returns the list of violations (strings) in the tree at root."""
    errors = []
    owner = {}  # header name -> layer folder holding it
    for layer in ALLOWED:
        for path in sources(root, layer):
            name = os.path.basename(path)
            if name.endswith(".h") and name[:-2] in SYSTEM_HEADERS:
                errors.append(f"{name}: {layer}/{name} shadows the C library's <{name}> on {layer}/'s include path")
            if name in owner and owner[name] != layer:
                errors.append(f"{name}: in both {owner[name]}/ and {layer}/ (ambiguous plain name)")
            owner.setdefault(name, layer)
    for top in list(ALLOWED) + ["tests"]:
        for path in sources(root, top):
            rel = os.path.relpath(path, root)
            here = os.path.dirname(path)
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    where = f"{rel}:{lineno}: #include \"{inc}\""
                    if "/" in inc:
                        errors.append(f"{where}: include by plain name (the build sets the include directories)")
                        continue
                    if os.path.exists(os.path.join(here, inc)):
                        continue  # same folder
                    if inc in GENERATED:
                        continue
                    if inc not in owner:
                        if top == "tests" and any(os.path.exists(os.path.join(d, inc))
                                                  for d, _, _ in os.walk(os.path.join(root, "tests"))):
                            continue  # a test helper shared between test folders
                        errors.append(f"{where}: no such header in any layer folder")
                        continue
                    if top != "tests" and owner[inc] not in ALLOWED[top]:
                        errors.append(f"{where}: {top}/ may not include {owner[inc]}/ "
                                      f"(allowed: {', '.join(sorted(ALLOWED[top]))})")
    return errors


def unlisted(root):
    """Source files of each layer folder (and of its sub-folders) that the nearest CMakeLists.txt
    does not name: a sub-folder with a CMakeLists.txt of its own lists its files there."""
    errors = []
    for layer in ALLOWED:
        folder = os.path.join(root, layer)
        if not os.path.isdir(folder):
            continue
        for dirpath, dirnames, names in os.walk(folder):
            dirnames.sort()
            owner = dirpath
            while owner != folder and not os.path.exists(os.path.join(owner, "CMakeLists.txt")):
                owner = os.path.dirname(owner)
            cmake = os.path.join(owner, "CMakeLists.txt")
            listed = set()
            if os.path.exists(cmake):
                with open(cmake, encoding="utf-8") as f:
                    text = re.sub(r"#.*", "", f.read())
                listed = set(re.findall(r"[A-Za-z0-9_.-]+\.(?:c|cu)\b", text))
            for name in sorted(names):
                if name.endswith((".c", ".cu")) and name not in listed:
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    where = os.path.relpath(cmake, root)
                    errors.append(f"{rel}: not listed in {where} (the build would leave it out)")
    return errors


def self_test():
    """A tiny tree with one planted violation of each kind: each must be reported."""
    files = {
        "base/error.h": "",
        "kernels/k.cu": '#include "error.h"\n#include "world.h"\n',      # up: collectives
        "kernels/k2.cu": '#include "attn_cudnn.h"\n',                    # sideways: cudnn
        "cudnn/attn_cudnn.h": '#include "error.h"\n#include "peer.h"\n',  # fine; up: collectives
        "collectives/world.h": '#include "error.h"\n',
        "collectives/peer.c": '#include "../base/error.h"\n#include "args.h"\n',  # path; up
        "collectives/peer.h": '#include "attn_cudnn.h"\n',                # fine: cudnn is below
        "topologies/placement.c": '#include "world.h"\n',                 # sideways
        "launcher/args.h": '#include "world.h"\n#include "missing.h"\n',  # fine; unresolved
        "tests/t.c": '#include "args.h"\n',
        "kernels/CMakeLists.txt": "add_library(k STATIC\n  k.cu\n  k2.cu\n  sub/listed.cu\n)\n# peer.c in a comment does not count\n",
        "kernels/sub/listed.cu": '#include "error.h"\n',
        "kernels/sub/unlisted.cu": "",                                    # unlisted, in a sub-folder
        "collectives/CMakeLists.txt": "# peer.c\nadd_library(c STATIC)\nadd_subdirectory(attn)\n",  # unlisted
        "collectives/attn/ring.c": '#include "world.h"\n',                  # fine: listed in attn/
        "collectives/attn/save.c": "",                                      # unlisted in attn/
        "collectives/attn/CMakeLists.txt": "target_sources(c PRIVATE ring.c)\n# save.c\n",
        "kernels/signal.h": "",                                             # the C library's name
    }
    expect = ["kernels/k.cu:2", "kernels/k2.cu:1", "cudnn/attn_cudnn.h:2", "collectives/peer.c:1", "collectives/peer.c:2",
              "topologies/placement.c:1", "launcher/args.h:2", "collectives/peer.c", "topologies/placement.c",
              "collectives/attn/save.c", "signal.h", "kernels/sub/unlisted.cu"]
    errors = tree_check.planted(files, lambda root: check(root) + unlisted(root))
    found = [e.split(": #include")[0].split(": not listed")[0].split(": kernels/")[0] for e in errors]
    return tree_check.self_test_verdict("layer check", expect, found, errors)


def main(argv):
    return tree_check.main(argv, __doc__, lambda root: check(root) + unlisted(root), self_test, "layer violation:",
                           "FAIL: {n} include(s) break the layer order",
                           "PASS layers: every include is by plain name and reaches only its own or a lower layer; "
                           "every source is listed in its folder's CMakeLists.txt")


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""The file-level call check: no circle of calls between the source files of a folder.

tests/layers/check_layers.py keeps the folders in order; inside a folder, files can still call
each other in a circle (a.c calls b.c, b.c calls c.c, c.c calls a.c), and then no file can be
read, tested or replaced without the others. This check reads what the compiler made: `nm` lists
each object file's defined and undefined symbols, an undefined symbol defined by another
selected file is an edge (a call, or a function or table taken by address), and every strongly
connected group of two or more files is a circle, reported with one path around it and the
symbols on each step.

Objects are given as object files or static archives (every member is read); the selection
keeps those whose source is a .c/.cu file in one of the --in folders (CMake names an object
SOURCE.o, e.g. ringattn_ring.c.o), or whose name matches --only.

Usage: check_file_cycles.py [--nm NM] (--in DIR | --only REGEX)... OBJECT_OR_ARCHIVE...
       check_file_cycles.py --self-test   (compiles a planted circle and a chain with cc)
Exit 0: no circle; 1: a circle (each printed); 2: usage, or nothing selected."""
import os
import re
import subprocess
import sys
import tempfile

SOURCE_EXT = (".c", ".cu")


def read_symbols(nm, paths):
    """{object name: (defined set, undefined set)} of every object in the given files."""
    objs = {}
    for path in paths:
        out = subprocess.run([nm, "-A", "-P", path], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"check_file_cycles: {nm} {path} failed: {out.stderr.strip()}")
        for line in out.stdout.splitlines():
            # "lib.a[member.o]: symbol T value size" (an archive) or "file.o: symbol U" (a file)
            m = re.match(r"^(.*?)(?:\[([^\]]+)\])?: (\S+) (\S)", line)
            if not m:
                continue
            obj = m.group(2) or os.path.basename(m.group(1))
            sym, kind = m.group(3), m.group(4)
            defined, undefined = objs.setdefault(obj, (set(), set()))
            if kind == "U":
                undefined.add(sym)
            elif kind.isupper():
                defined.add(sym)
    return objs


def source_of(obj):
    """ringattn_ring.c.o -> ringattn_ring.c; ringattn_ring.o -> None (no source extension)."""
    base = obj[:-2] if obj.endswith(".o") else obj
    return base if base.endswith(SOURCE_EXT) else None


def select(objs, folders, patterns):
    names = set()
    for d in folders:
        names.update(n for n in os.listdir(d) if n.endswith(SOURCE_EXT))
    return {o: v for o, v in objs.items()
            if source_of(o) in names or any(re.search(p, o) for p in patterns)}


def edges(objs):
    """{a: {b: [symbols a uses that b defines]}} between distinct selected objects."""
    owner = {}
    for o, (defined, _) in objs.items():
        for s in defined:
            owner.setdefault(s, o)
    g = {o: {} for o in objs}
    for o, (_, undefined) in objs.items():
        for s in sorted(undefined):
            t = owner.get(s)
            if t and t != o:
                g[o].setdefault(t, []).append(s)
    return g


def circles(g):
    """The strongly connected groups of two or more nodes (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def path_around(g, group):
    """One closed path through the group: the shortest from its first member back to it."""
    members, start = set(group), group[0]
    parent, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(g[v]):
                if w == start:
                    path = [v]
                    while parent[path[-1]] is not None:
                        path.append(parent[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in parent:
                    parent[w] = v
                    nxt.append(w)
        frontier = nxt
    return group + [start]


def report(g, groups):
    lines = []
    for group in groups:
        path = path_around(g, group)
        lines.append(f"circle of {len(group)} files: {', '.join(source_of(o) or o for o in group)}")
        for a, b in zip(path, path[1:]):
            syms = g[a][b]
            more = f" (+{len(syms) - 3} more)" if len(syms) > 3 else ""
            lines.append(f"  {source_of(a) or a} -> {source_of(b) or b}: {', '.join(syms[:3])}{more}")
    return lines


def check(nm, folders, patterns, paths):
    objs = select(read_symbols(nm, paths), folders, patterns)
    g = edges(objs)
    return objs, report(g, circles(g))


def self_test():
    """A circle a -> b -> c -> a (calls, and a function taken by address) must be reported with all
    three files; the same files as a chain must pass, even when a file outside the selected folder
    closes the loop."""
    cc = os.environ.get("CC", "cc")
    trees = {
        "circle": {"a.c": "int b(void); int a(void) { return b(); }\n",
                   "b.c": "int c(void); int b(void) { return c(); }\n",
                   "c.c": "int a(void); int (*const c_hook)(void) = a; int c(void) { return 1; }\n"},
        "chain": {"a.c": "int b(void); int a(void) { return b(); }\n",
                  "b.c": "int c(void); int b(void) { return c(); }\n",
                  "c.c": "int other(void); int c(void) { return other(); }\n",
                  "../elsewhere/other.c": "int a(void); int other(void) { return a(); }\n"},
    }
    problems = []
    with tempfile.TemporaryDirectory() as root:
        for name, files in trees.items():
            src = os.path.join(root, name, "src")
            objects = []
            for f, text in files.items():
                path = os.path.normpath(os.path.join(src, f))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as out:
                    out.write(text)
                obj = os.path.join(root, name, os.path.basename(f) + ".o")
                subprocess.run([cc, "-c", path, "-o", obj], check=True)
                objects.append(obj)
            _, lines = check("nm", [src], [], objects)
            if name == "circle" and not (lines and lines[0] == "circle of 3 files: a.c, b.c, c.c"):
                problems.append(f"the planted circle was not reported as a.c, b.c, c.c: {lines}")
            if name == "chain" and lines:
                problems.append(f"a chain was reported: {lines}")
    for p in problems:
        print("FAIL self-test: " + p)
    if not problems:
        print("PASS file-cycle self-test (a planted circle of 3 files reported, a chain passed)")
    return 1 if problems else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    nm, folders, patterns, paths = "nm", [], [], []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a in ("--nm", "--in", "--only") and args:
            v = args.pop(0)
            if a == "--nm":
                nm = v
            elif a == "--in":
                if not os.path.isdir(v):
                    print(f"check_file_cycles: --in {v}: not a folder", file=sys.stderr)
                    return 2
                folders.append(v)
            else:
                patterns.append(v)
        elif a.startswith("--"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            paths.append(a)
    if not paths or not (folders or patterns):
        print(__doc__, file=sys.stderr)
        return 2
    objs, lines = check(nm, folders, patterns, paths)
    if not objs:
        print("check_file_cycles: no object selected (wrong --in/--only, or the library is empty)", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    if lines:
        print(f"FAIL: the files above call each other in a circle ({len(objs)} files read)", file=sys.stderr)
        return 1
    print(f"PASS file cycles: no circle of calls among {len(objs)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

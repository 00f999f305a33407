#!/usr/bin/env python3
"""The writer scan (issue 42): every file that launcher/, plots/ and tools/ write goes through
the one writer of its language, which creates it as a new file in its final folder, never
through a symlink, never onto a device, with a size cap:
  C       base/newfile.h (cb_newfile_replace, cb_newfile_temp + cb_newfile_stream)
  Python  plots/outfile.py (write_new)
  shell   the shared function of launcher/ (it writes a fresh mktemp file and renames it)
Any other write fails this test, reported as FILE:LINE: what (the fix: call the writer).

What counts as a write, per language:
  Python  open() (also io., codecs., builtins., gzip., bz2., lzma., tarfile. and a Path's
          .open) with a mode holding w, a, x or + or a mode that is not a literal; os.open
          with O_WRONLY, O_RDWR, O_CREAT, O_APPEND or O_TRUNC, or flags that name no O_ flag;
          .write_text() and .write_bytes(); shutil.copy, copy2, copyfile, copytree and move.
          (os.fdopen on a descriptor is not: the descriptor's open is what is checked.)
  C       fopen/freopen with a mode holding w, a or + or a mode that is not a literal; open,
          openat and open64 with O_WRONLY, O_RDWR, O_CREAT, O_APPEND or O_TRUNC; creat.
  shell   a redirection >, >>, >|, &>, &>>, N>, N>>, <> and each file argument of tee, unless
          its target is /dev/null or /dev/stderr, a descriptor (>&2, 2>&1, >&-), a process
          substitution >(...), or a fresh mktemp temporary: a variable every assignment of
          which in that file is $(mktemp ...) (the name itself), or $(mktemp -d ...) or a
          path inside such a folder ("$tmpdir/x": the name or anything under it). Code in
          a string handed to `bash -c`, `sh -c` or `eval` is read as shell too; comments,
          quoted text, here-documents, arithmetic ($((...)), ((...))) and [[ ... ]] are not
          redirections.
Files: *.py and scripts whose first line names python; *.c and *.h; *.sh and scripts whose
first line names sh or bash. The writers themselves are not scanned (plots/outfile.py; C's is
in base/, outside the scanned folders).

ALLOW lists, with the reason, the writes that cannot go through a writer; an entry that
matches no write fails too, so the list cannot go stale.

usage: check_writers.py ROOT        scan ROOT's launcher/, plots/ and tools/
       check_writers.py --self-test planted writes of every kind are found, allowed forms are not
"""
import ast
import contextlib
import io
import os
import re
import sys
import tempfile

FOLDERS = ("launcher", "plots", "tools")
WRITERS = ("plots/outfile.py",)  # the Python writer; base/newfile.c lies outside FOLDERS
# (path, the line's text stripped) -> why it cannot go through a writer. Empty: none can't.
ALLOW = {}

WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC")
PY_OPEN_MODULES = ("io", "codecs", "builtins", "gzip", "bz2", "lzma", "tarfile")
PY_COPIES = ("copy", "copy2", "copyfile", "copytree", "move")
SH_OK_TARGETS = ("/dev/null", "/dev/stderr")


# --- Python --------------------------------------------------------------------------------
def _dotted(node):
    """'os.open' for an Attribute chain of Names, 'open' for a Name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def _mode_writes(node):
    """(writes?, why) of an open() mode argument node (None: the default "r")."""
    if node is None:
        return False, ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return any(c in node.value for c in "wax+"), f"mode {node.value!r}"
    return True, "a mode that is not a literal"


def python_writes(text, path):
    """[(line, what)] of the writes in Python source text."""
    try:
        tree = ast.parse(text, path)
    except SyntaxError as e:
        return [(e.lineno or 0, f"not Python the scan can read ({e.msg})")]
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f, name = node.func, _dotted(node.func)
        kw = {k.arg: k.value for k in node.keywords}
        if name == "os.open":
            flags = node.args[1] if len(node.args) > 1 else kw.get("flags")
            names = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(flags)
                     if isinstance(n, (ast.Attribute, ast.Name))} if flags is not None else set()
            if names & set(WRITE_FLAGS) or not any(n.startswith("O_") for n in names):
                found.append((node.lineno, "os.open with write flags (or flags the scan cannot read)"))
        elif name == "open" or (name and name.rsplit(".", 1)[0] in PY_OPEN_MODULES and name.endswith(".open")):
            writes, why = _mode_writes(node.args[1] if len(node.args) > 1 else kw.get("mode"))
            if writes:
                found.append((node.lineno, f"{name}() with {why}"))
        elif isinstance(f, ast.Attribute) and f.attr == "open" and name != "os.open":
            # a Path's .open(mode): the mode is the first argument
            first = node.args[0] if node.args else kw.get("mode")
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and any(c in first.value for c in "wax+"):
                found.append((node.lineno, f".open() with mode {first.value!r}"))
        elif isinstance(f, ast.Attribute) and f.attr in ("write_text", "write_bytes"):
            found.append((node.lineno, f".{f.attr}()"))
        elif name and name.startswith("shutil.") and name.split(".", 1)[1] in PY_COPIES:
            found.append((node.lineno, f"{name}() to a destination"))
    return found


# --- C -------------------------------------------------------------------------------------
def _strip_c(text, strings=True):
    """C text with comments blanked (newlines kept), string literals kept (or, with strings
    False, their contents blanked too): the same length, so offsets match."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            lit = text[i:j + 1]
            out.append(lit if strings else q + re.sub(r"[^\n]", " ", lit[1:-1]) + lit[-1:])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _c_args(text, start):
    """The top-level arguments of the call whose '(' is at start."""
    depth, args, cur, i = 0, [], [], start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c == "(":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args
        elif c == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    return args


def c_writes(text):
    """[(line, what)] of the writes in C source text."""
    code, text = _strip_c(text, strings=False), _strip_c(text)
    found = []
    for m in re.finditer(r"(?<![\w.>])(fopen|freopen|open|openat|open64|creat)\s*\(", code):
        fn, line = m.group(1), text.count("\n", 0, m.start()) + 1
        args = _c_args(text, m.end() - 1)
        if fn == "creat":
            found.append((line, "creat()"))
        elif fn in ("fopen", "freopen"):
            mode = args[1] if len(args) > 1 else ""
            lit = re.fullmatch(r'"([^"]*)"', mode)
            if not lit or any(c in lit.group(1) for c in "wa+"):
                found.append((line, f"{fn}() with mode {mode or '?'}"))
        elif any(re.search(rf"\b{flag}\b", ",".join(args[1:])) for flag in WRITE_FLAGS):
            found.append((line, f"{fn}() with write flags"))
    return found


# --- shell ---------------------------------------------------------------------------------
_KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "time", "{", "exec", "command", "builtin"}
_DECLARE = {"local", "declare", "typeset", "export", "readonly"}
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=(.*)", re.S)


class _Shell:
    """A shell tokenizer just deep enough to find redirections, tee's files and assignments."""

    def __init__(self, text, line=1):
        self.s, self.i, self.line = text, 0, line
        self.writes = []  # (line, kind, raw target, function or None)
        self.assigns = []  # (name, raw value, function or None)
        self.locals = set()  # (name, function): declared local (local, declare, typeset) there
        self.heredocs = []
        self.funcs, self.braces, self.pending_func = [], 0, None  # function scopes by { } depth

    def func(self):
        return self.funcs[-1][0] if self.funcs else None

    def scan(self, stop=None):
        """Reads commands until stop (")" or "`") or the end; returns with self.i past stop."""
        s = self.s
        word, wstart, cmd, in_cond, case, parens = None, 0, [], False, 0, 0

        def end_word():
            nonlocal word, in_cond, case
            if word is None:
                return
            raw = s[wstart:self.i]
            if not cmd and not in_cond:
                if raw == "[[":
                    in_cond = True
                elif raw == "case":
                    case += 1
                elif raw == "esac":
                    case -= 1
                elif _ASSIGN.fullmatch(raw):
                    m = _ASSIGN.fullmatch(raw)
                    self.assigns.append((m.group(1), m.group(3), self.func()))
                    word = None
                    return
                elif raw in _KEYWORDS or raw in ("}", "fi", "done"):
                    self._brace(raw)
                    word = None
                    return
            elif in_cond and raw == "]]":
                in_cond = False
            elif cmd and cmd[0][1] == "function" and len(cmd) == 1:
                self.pending_func = raw
            elif cmd and cmd[0][1] in _DECLARE:
                m = _ASSIGN.fullmatch(raw)
                name = m.group(1) if m else raw
                if cmd[0][1] != "export" and self.func():
                    self.locals.add((name, self.func()))
                if m:
                    self.assigns.append((name, m.group(3), self.func()))
            cmd.append((word, raw))
            word = None

        def end_cmd():
            end_word()
            if cmd and cmd[0][1] == "tee":
                dashdash = False
                for ln, raw in cmd[1:]:
                    if raw == "--" and not dashdash:
                        dashdash = True
                    elif dashdash or not raw.startswith("-"):
                        self.writes.append((ln, "tee", raw, self.func()))
            if cmd and _unquote(cmd[0][1]) in ("bash", "sh", "eval"):
                args = [raw for _, raw in cmd[1:]]
                for k, raw in enumerate(args):
                    if cmd[0][1] == "eval" or (k > 0 and args[k - 1] == "-c"):
                        inner = _Shell(_unquote(raw), cmd[k + 1][0])
                        inner.funcs = list(self.funcs)
                        inner.scan()
                        self.writes += inner.writes
                        self.assigns += inner.assigns
                        self.locals |= inner.locals
            cmd.clear()

        def start_word():
            nonlocal word, wstart
            if word is None:
                word, wstart = self.line, self.i

        while self.i < len(s):
            c = s[self.i]
            if stop and c == stop[0] and not (stop == ")" and (parens or case)):
                end_cmd()
                self.i += 1
                return
            if c == "\n":
                end_cmd()
                self.i += 1
                self.line += 1
                self._heredoc_bodies()
                continue
            if c in " \t":
                end_word()
                self.i += 1
                continue
            if c == "#" and word is None:
                while self.i < len(s) and s[self.i] != "\n":
                    self.i += 1
                continue
            if c == "\\":
                start_word()
                if s[self.i + 1:self.i + 2] == "\n":
                    self.line += 1
                self.i += 2
                continue
            if c == "'":
                start_word()
                self._skip_to("'", self.i + 1)
                continue
            if c == '"':
                start_word()
                self._double_quoted()
                continue
            if c == "$":
                start_word()
                self._dollar()
                continue
            if c == "`":
                start_word()
                self.i += 1
                self.scan("`")
                continue
            if in_cond and c in "<>()":
                start_word()
                self.i += 1
                continue
            if c == "(" and s.startswith("((", self.i) and word is None and not cmd:
                self._skip_arith(self.i + 2)
                continue
            if c in ">" or (c == "&" and s.startswith("&>", self.i)) or s.startswith("<>", self.i):
                self._redirect(word, wstart, cmd)
                word = None
                continue
            if c == "<":
                if word is not None and s[wstart:self.i].isdigit():
                    word = None
                self._input()
                continue
            if c in ";&|":
                end_cmd()
                self.i += 1
                continue
            fdef = re.compile(r"\(\s*\)").match(s, self.i) if c == "(" and word is not None else None
            if fdef and re.fullmatch(r"[A-Za-z_][\w.:-]*", s[wstart:self.i]) and not cmd:  # name() {
                self.pending_func = s[wstart:self.i]
                word = None
                self.i = fdef.end()
                continue
            if c == "(":
                end_word()
                if case and cmd:  # a case pattern list: "a|b)" never opens anything
                    self.i += 1
                    continue
                parens += 1
                end_cmd()
                self.i += 1
                continue
            if c == ")":
                end_word()
                if parens:
                    parens -= 1
                end_cmd()
                self.i += 1
                continue
            start_word()
            self.i += 1
        end_cmd()

    def _brace(self, raw):
        """A { or } at a command's start: a function's body opens and closes with them."""
        if raw == "{":
            self.braces += 1
            if self.pending_func:
                self.funcs.append((self.pending_func, self.braces))
                self.pending_func = None
        elif raw == "}":
            if self.funcs and self.funcs[-1][1] == self.braces:
                self.funcs.pop()
            self.braces -= 1

    def _skip_to(self, quote, j):
        self.line += self.s.count("\n", self.i, j)
        k = self.s.find(quote, j)
        k = len(self.s) if k < 0 else k
        self.line += self.s.count("\n", j, k)
        self.i = k + 1

    def _double_quoted(self):
        s, self.i = self.s, self.i + 1
        while self.i < len(s) and s[self.i] != '"':
            c = s[self.i]
            if c == "\\":
                self.i += 2
            elif c == "$":
                self._dollar()
            elif c == "`":
                self.i += 1
                self.scan("`")
            else:
                if c == "\n":
                    self.line += 1
                self.i += 1
        self.i += 1

    def _dollar(self):
        s, i = self.s, self.i
        if s.startswith("$((", i):
            self._skip_arith(i + 3)
        elif s.startswith("$(", i):
            self.i = i + 2
            self.scan(")")
        elif s.startswith("${", i):
            self._skip_nested(i + 2, "{", "}", 1)
        elif s.startswith("$'", i):
            j = i + 2
            while j < len(s) and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            self.i = j + 1
        else:
            self.i = i + 2 if i + 1 < len(s) and not s[i + 1].isspace() else i + 1

    def _skip_arith(self, j):
        self._skip_nested(j, "(", ")", 2)

    def _skip_nested(self, j, opening, closing, depth):
        """Moves past the closing bracket that brings depth to 0 (backslashes escape)."""
        s = self.s
        while j < len(s) and depth:
            if s[j] == "\\":
                j += 1
            elif s[j] == opening:
                depth += 1
            elif s[j] == closing:
                depth -= 1
            elif s[j] == "\n":
                self.line += 1
            j += 1
        self.i = j

    def _read_target(self):
        """The raw word after a redirection operator (spaces skipped)."""
        s = self.s
        while self.i < len(s) and s[self.i] in " \t":
            self.i += 1
        start = self.i
        while self.i < len(s) and s[self.i] not in " \t\n;&|<>)":
            c = s[self.i]
            if c == "'":
                self._skip_to("'", self.i + 1)
            elif c == '"':
                self._double_quoted()
            elif c == "$":
                self._dollar()
            elif c == "\\":
                self.i += 2
            else:
                self.i += 1
        return s[start:self.i]

    def _redirect(self, word, wstart, cmd):
        s, line, fd = self.s, self.line, False
        if word is not None:  # "2>", "{fd}>": the descriptor; "a>b": the word ends here
            raw = s[wstart:self.i]
            fd = raw.isdigit() or bool(re.fullmatch(r"\{[A-Za-z_]\w*\}", raw))
            if not fd:
                cmd.append((word, raw))
        if s.startswith("<>", self.i):
            self.i += 2
            self.writes.append((line, "<>", self._read_target(), self.func()))
            return
        if s[self.i] == "&":
            self.i += 1
        self.i += 1  # the '>'
        if s.startswith(">", self.i) or s.startswith("|", self.i):
            self.i += 1
        if s.startswith("&", self.i):  # >&2, >&-, 1>&"$fd": a descriptor; ">& file" is a file
            self.i += 1
            target = self._read_target()
            if fd or re.fullmatch(r"[0-9]+-?|-", target):
                return
            self.writes.append((line, ">&", target, self.func()))
            return
        while s.startswith((" ", "\t"), self.i):
            self.i += 1
        if s.startswith(("(", ">(", "<("), self.i):  # a process substitution: its commands are read as code
            self.i = s.index("(", self.i) + 1
            self.scan(")")
            return
        self.writes.append((line, ">", self._read_target(), self.func()))

    def _input(self):
        s = self.s
        if s.startswith("<<<", self.i):
            self.i += 3
            self._read_target()
        elif s.startswith("<<", self.i):
            self.i += 2
            if s.startswith("-", self.i):
                self.i += 1
            self.heredocs.append(_unquote(self._read_target()))
        elif s.startswith("<(", self.i):
            self.i += 2
            self.scan(")")
        else:
            self.i += 1
            if s.startswith("&", self.i):
                self.i += 1
            self._read_target()

    def _heredoc_bodies(self):
        """Skips the here-documents opened on the line just ended."""
        while self.heredocs:
            delim = self.heredocs.pop(0)
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                body_line = self.s[self.i:end]
                self.i = end + 1
                self.line += 1
                if body_line.strip("\t") == delim:
                    break


def _unquote(raw):
    return re.sub(r"""["']""", "", raw)


def _temp_kinds(assigns, local):
    """kind(name, function) -> "file", "folder" or "other": whether name, where a write in
    function (None: outside any) reads it, is a fresh mktemp temporary (the module's rule). A
    name declared local in that function is judged by that function's assignments, any other by
    every assignment outside the functions that declare it local."""
    memo = {}

    def kind(name, func, seen=()):
        scope = func if (name, func) in local else None
        key = (name, scope)
        if key in memo:
            return memo[key]
        if key in seen:
            return "other"
        raws = [(raw, f) for n, raw, f in assigns if n == name and
                (f == scope if scope else (n, f) not in local)]
        kinds = set()
        for raw, f in raws:
            v = _unquote(raw).strip()
            m = re.fullmatch(r"\$\(\s*mktemp\b(.*)\)", v, re.S)
            if m:
                kinds.add("folder" if re.search(r"(^|\s)-[a-zA-Z]*d", m.group(1)) else "file")
                continue
            ref = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/.+", v, re.S)
            kinds.add("folder" if ref and kind(ref.group(1), f, seen + (key,)) == "folder" else "other")
        memo[key] = kinds.pop() if len(kinds) == 1 else "other"
        return memo[key]
    return kind


def shell_parse(text):
    """(writes, assignments, locals) of shell text (_Shell's lists)."""
    sh = _Shell(text)
    sh.scan()
    return sh.writes, sh.assigns, sh.locals


def shell_writes(writes, assigns, local):
    """[(line, what)] of the writes that go to anything but the module's targets; assigns and
    local: every assignment and local declaration of the program (a folder's shell files source
    each other: one program)."""
    kind = _temp_kinds(assigns, local)
    found = []
    for line, wkind, raw, func in writes:
        t = _unquote(raw)
        m = re.fullmatch(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?(/.*)?", t, re.S)
        k = kind(m.group(1), func) if m else "other"
        if t in SH_OK_TARGETS or k == "folder" or (k == "file" and not m.group(2)):
            continue
        found.append((line, f"{'tee' if wkind == 'tee' else 'redirection ' + wkind} to {raw or '?'}"))
    return found


# --- the tree ------------------------------------------------------------------------------
def language(path):
    """'python', 'c', 'shell' or None."""
    if path.endswith(".py"):
        return "python"
    if path.endswith((".c", ".h")):
        return "c"
    if path.endswith(".sh"):
        return "shell"
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return None
    if first.startswith(b"#!"):
        if b"python" in first:
            return "python"
        if re.search(rb"\b(ba)?sh\b", first):
            return "shell"
    return None


def scan(root):
    """[(relative path, line, line text, what)] of every write outside the writers. The shell
    files of one folder are one program (collbench-run sources launcher/*.sh, tools/device's
    scripts source common.sh): their assignments are judged together."""
    found = []
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            shell = []  # (rel, lines, writes)
            assigns, local = [], set()
            for fname in sorted(filenames):
                path = os.path.join(dirpath, fname)
                rel = os.path.relpath(path, root)
                lang = language(path)
                if lang is None or rel in WRITERS or os.path.islink(path):
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                lines = text.splitlines()
                if lang == "shell":
                    writes, a, loc = shell_parse(text)
                    shell.append((rel, lines, writes))
                    assigns += a
                    local |= loc
                    continue
                for line, what in python_writes(text, rel) if lang == "python" else c_writes(text):
                    found.append((rel, line, lines[line - 1].strip() if 0 < line <= len(lines) else "", what))
            for rel, lines, writes in shell:
                for line, what in shell_writes(writes, assigns, local):
                    found.append((rel, line, lines[line - 1].strip() if 0 < line <= len(lines) else "", what))
    return sorted(found)


def check(root):
    found = scan(root)
    used, bad = set(), []
    for rel, line, text, what in found:
        if (rel, text) in ALLOW:
            used.add((rel, text))
        else:
            bad.append(f"{rel}:{line}: {what}: {text[:160]}")
    stale = [f"{rel}: allow-list entry matches no write: {text}" for rel, text in ALLOW if (rel, text) not in used]
    for b in bad + stale:
        print(b)
    if bad or stale:
        print(f"check_writers: {len(bad)} write(s) outside the writers (C base/newfile.h, Python plots/outfile.py, "
              f"shell: the shared function of launcher/), {len(stale)} stale allow-list entr(ies)")
        return 1
    print(f"check_writers: every write of {', '.join(FOLDERS)} goes through a writer ({len(used)} allowed)")
    return 0


PLANTED = {
    "plots/bad.py": ('import os, io, shutil, pathlib, codecs\n'
                     'open("x", "w")\nopen("x", mode="a")\nio.open("x", "r+")\ncodecs.open("x", "wb")\n'
                     'open("x", m)\nos.open("x", os.O_WRONLY | os.O_CREAT)\nos.open("x", flags)\n'
                     'pathlib.Path("x").write_text("t")\npathlib.Path("x").open("w")\nshutil.copy("a", "b")\n'
                     'shutil.copytree("a", "b")\n', 11),
    "plots/good.py": ('import os, outfile\nopen("x")\nopen("x", "rb")\nos.open("x", os.O_RDONLY | os.O_NOFOLLOW)\n'
                      'outfile.write_new("x", "t")\nos.fdopen(3, "w")\n# open("x", "w")\ns = \'open("x", "w")\'\n', 0),
    "launcher/bad.c": ('FILE *f = fopen(p, "w");\nf = fopen(p, "a+");\nf = fopen(p, mode);\nint fd = open(p, O_WRONLY);\n'
                       'fd = openat(d, p, O_RDONLY | O_CREAT, 0600);\nfd = creat(p, 0600);\nf = freopen(p, "w", stdout);\n',
                       7),
    "launcher/good.c": ('/* fopen(p, "w") */\nFILE *f = fopen(p, "r");\nint fd = open(p, O_RDONLY | O_NOFOLLOW);\n'
                        'x.open(p, O_WRONLY);\ncb_open(p, O_WRONLY);\nf = fdopen(fd, "w");\n'
                        'const char *s = "open(p, O_WRONLY)";\n', 0),
    "launcher/bad.sh": ('echo hi > "$dir/out.txt"\necho hi >> out.log\nprintf x | tee -a "$log" >/dev/null\n'
                        'cmd 2> "$OUT/err"\ncmd &> all.log\nexec 3> fd3.txt\nx=$(cmd > "$out")\ntmp=$(mktemp)\n'
                        'tmp=$1\necho > "$tmp"\necho "$(date)" >| clobber\ncat <> rw\nbash -c "echo > $dir/f"\n'
                        'tee -- "$dir/output.txt" < "$fifo" &\n{ echo a; } > "$d/x"\nif true; then echo > f; fi\n'
                        'w() {\n  local t=$1\n  echo > "$t"\n}\nfunction v { echo > "$t"; }\n', 16),
    "launcher/good.sh": ('#!/bin/sh\n# echo > "$dir/x"\necho "a > b" \'c > d\' >&2\ncmd 2>/dev/null >/dev/stderr\n'
                         'cmd 2>&1 >&- 3>&1\nwork=$(mktemp -d "${TMPDIR:-/tmp}/x.XXXXXX")\nf=$(mktemp "$d/.x.XXXXXX")\n'
                         'fifo=$work/fifo\necho > "$work/a" 2>> "${work}/b"\necho > "$f"\ncat <<EOF\n> "$dir/x"\nEOF\n'
                         '[ $((a > b)) ]\n(( a > 2 )) && echo\n[[ $a > $b ]] && echo\ncmd > "$fifo"\n'
                         'case $x in a) echo ;; *) echo ;; esac\ny=$(a | tee >(cat >&2))\nn=${#x}\necho "${x#*>}"\n'
                         'cat <<< "> x"\ncmd > >(cat >&2)\nlocal g; g=$(mktemp)\necho > "$g"\n'
                         'mk() {\n  local t\n  t=$(mktemp "$d/.x.XXXXXX") || return 1\n  head -c 9 > "$t"\n'
                         '  exec {fd}>> "$t"\n  place "$t"\n}\nplace() { local t=$1; mv "$t" x; }\n'
                         'exec {o}>&2\n(cat) 1>&"$o" 2>&"$o"\n', 0),
}


def self_test():
    """Planted writes of every kind must be found (each bad file's count), the allowed forms
    never; a stale allow-list entry must fail."""
    global ALLOW
    problems = []
    with tempfile.TemporaryDirectory(prefix="cb-check-writers.") as root:
        for rel, (text, _) in PLANTED.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:  # (tests/ is not scanned)
                f.write(text)
        found = scan(root)
        for rel, (text, want) in PLANTED.items():
            got = [(line, what) for r, line, _, what in found if r == rel]
            if len(got) != want:
                problems.append(f"{rel}: {len(got)} write(s) found, planted {want}: {got}")
        ALLOW = {("launcher/bad.sh", "echo hi >> out.log"): "self-test", ("launcher/bad.sh", "no such line"): "stale"}
        with contextlib.redirect_stdout(io.StringIO()):
            rc = check(root)
        if rc != 1:
            problems.append("a tree with planted writes and a stale allow-list entry passed")
        ALLOW = {}
    for p in problems:
        print("check_writers self-test: FAIL:", p)
    print("check_writers self-test:", "FAILED" if problems else "ok (planted writes found, allowed forms passed)")
    return 1 if problems else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.split("\n\n")[-1].strip(), file=sys.stderr)
        return 2
    return check(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""The family-blind check: launcher/ (the command line, the bench engine, the reports) names no
collective family. Each family describes itself beside its config in collectives/ (family.h),
so adding one adds files there; an engine that branches on a family again fails here.

What counts as naming a family, in launcher/*.c and launcher/*.h (comments do not count):
  - a family's enum constant (collectives/family.h's cb_family_t, all but the count CB_NFAMILIES);
  - a family's name as a word inside a string literal ("moe", "ringattn %s", "-o applies to
    allreduce and reducescatter"): what a family is called comes from its describer;
  - an identifier declared in a family's own headers: <prefix>_*.h under collectives/, where the
    prefixes are the family names and the prefixes of the describer files (<prefix>_family.c
    under collectives/: attn for ringattn's wing), e.g. cb_moe_config_t, cb_attn_pass_name,
    CB_ATTN_CAUSAL; and an #include of such a header;
  - a member named after a family or a wing prefix (a->moe, p->attn) or is_<that> (is_moe).
The family list and the prefixes are read from the tree, so a new family is covered by itself.

Usage: check_family_blind.py ROOT          check the tree at ROOT (exit 1 on any violation)
       check_family_blind.py --self-test   prove the check fails on planted violations"""
import os
import re
import sys

import tree_check

ENUM = re.compile(r"typedef\s+enum\s+cb_family\s*\{(.*?)\}\s*cb_family_t\s*;", re.S)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
WORD = re.compile(r"\b[A-Za-z_]\w*\b")


def families(root):
    """The family enum constants (without the count) and the family names they stand for."""
    with open(os.path.join(root, "collectives", "family.h"), encoding="utf-8") as f:
        m = ENUM.search(f.read())
    if not m:
        raise SystemExit("check_family_blind: no cb_family_t enum in collectives/family.h")
    consts = [c.split("=")[0].strip() for c in COMMENT.sub("", m.group(1)).split(",")]
    consts = [c for c in consts if c and c != "CB_NFAMILIES"]
    return consts, [c[len("CB_"):].lower() for c in consts]


def wing_prefixes(root, names):
    """The file prefixes of the families' own code: their names and their describers' prefixes."""
    prefixes = set(names)
    for _, _, files in os.walk(os.path.join(root, "collectives")):
        for name in files:
            m = re.fullmatch(r"([a-z0-9]+)_family\.c", name)
            if m:
                prefixes.add(m.group(1))
    return prefixes


def strip_code(text):
    """Comments and string literals blanked (newlines kept), for the identifier rules."""
    text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', text)


def declared(path):
    """Identifiers a header declares: macros, typedef names, struct/enum tags and constants,
    functions and extern objects."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip_code(f.read())
    names = set(re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M))
    names |= set(re.findall(r"\}\s*(\w+)\s*;", text))
    names |= set(re.findall(r"\b(?:struct|enum|union)\s+(\w+)\s*\{", text))
    names |= set(re.findall(r"typedef\s[^;{]*?\b(\w+)\s*;", text))
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", text):
        names |= {c.split("=")[0].strip() for c in body.split(",") if c.split("=")[0].strip()}
    names |= set(re.findall(r"^[A-Za-z_][\w \t\*]*?\b(cb_\w+)\s*\(", text, re.M))
    names |= set(re.findall(r"^\s*extern\s[^;(]*?\b(cb_\w+)\s*(?:\[|;|,)", text, re.M))
    names.discard("")
    return {n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n) and not n.endswith("_H")}


def family_headers(root, prefixes):
    """The families' own headers under collectives/ (sub-folders too), by name -> path."""
    found = {}
    for folder, _, files in os.walk(os.path.join(root, "collectives")):
        for n in files:
            if n.endswith(".h") and any(n.startswith(p + "_") for p in prefixes):
                found[n] = os.path.join(folder, n)
    return found


def check(root):
    consts, names = families(root)
    prefixes = wing_prefixes(root, names)
    headers = family_headers(root, prefixes)
    idents = {}
    for h in sorted(headers):
        for ident in declared(headers[h]):
            idents.setdefault(ident, h)
    for c in consts:
        idents[c] = "collectives/family.h (a family's enum constant)"
    name_word = re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")
    member = re.compile(r"(?:\.|->)\s*(" + "|".join(sorted(prefixes)) + r")\b|\bis_(" +
                        "|".join(sorted(prefixes)) + r")\b")
    errors = []
    folder = os.path.join(root, "launcher")
    for name in sorted(os.listdir(folder)):
        if not name.endswith((".c", ".h")):
            continue
        rel = f"launcher/{name}"
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            raw = f.read()
        no_comments = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), raw)
        for m in STRING.finditer(no_comments):
            w = name_word.search(m.group(0))
            if w and not INCLUDE.match(no_comments[no_comments.rfind("\n", 0, m.start()) + 1:m.end()]):
                line = no_comments.count("\n", 0, m.start()) + 1
                errors.append(f"{rel}:{line}: the family name '{w.group(1)}' in a string: {m.group(0)[:60]}")
        for m in INCLUDE.finditer(no_comments):
            if m.group(1) in headers:
                line = no_comments.count("\n", 0, m.start()) + 1
                errors.append(f"{rel}:{line}: includes a family's own header \"{m.group(1)}\"")
        code = strip_code(raw)
        for lineno, text in enumerate(code.split("\n"), 1):
            for w in WORD.finditer(text):
                if w.group(0) in idents:
                    errors.append(f"{rel}:{lineno}: {w.group(0)} (declared in {idents[w.group(0)]})")
            for m in member.finditer(text):
                errors.append(f"{rel}:{lineno}: a member named after a family: {m.group(0).strip()}")
    return errors


def self_test():
    """A tiny tree with one planted violation of each kind, and lines that must pass."""
    files = {
        "collectives/family.h": "typedef enum cb_family {\n  CB_ALPHA = 0,\n  CB_BETA,\n  CB_NFAMILIES\n} cb_family_t;\n",
        "collectives/beta_config.h": "typedef struct cb_beta_config { int width; } cb_beta_config_t;\n"
                                     "int cb_beta_check(const cb_beta_config_t *c);\n#define CB_BETA_MAX 4\n",
        "collectives/wing_family.c": "",
        "collectives/wing_shape.h": "enum cb_wing_bits { CB_WING_LEFT = 1, CB_WING_RIGHT = 2 };\n",
        "launcher/ok.c": ('/* the beta family and CB_BETA in a comment are fine */\n#include "family.h"\n'
                          'static int n = CB_NFAMILIES;\nstatic const char *s = "alphabet, betamax";\n'
                          "int cb_bench_alpha_polled(void);\n"),
        "launcher/bad.c": ('#include "beta_config.h"\n'                 # 1: include
                           "int f(int x) { return x == CB_BETA; }\n"   # 2: enum constant
                           'static const char *t = "run beta now";\n'  # 3: name in a string
                           "int g(cb_beta_config_t *c);\n"             # 4: config type
                           "int h(struct a *a) { return a->beta.width + CB_BETA_MAX; }\n"  # 5: member, macro
                           "int k(int v) { return v & CB_WING_LEFT; }\n"                   # 6: wing constant
                           "int is_wing;\n"),                                             # 7: is_<wing>
    }
    expect = ["launcher/bad.c:1", "launcher/bad.c:2", "launcher/bad.c:3", "launcher/bad.c:4", "launcher/bad.c:5",
              "launcher/bad.c:5", "launcher/bad.c:6", "launcher/bad.c:7"]
    errors = tree_check.planted(files, check)
    found = [":".join(e.split(":")[:2]) for e in errors]
    return tree_check.self_test_verdict("family-blind check", expect, found, errors)


def main(argv):
    return tree_check.main(argv, __doc__, check, self_test, "family named in launcher/:",
                           "FAIL: launcher/ names a family {n} time(s); describe it in collectives/ (family.h) instead",
                           "PASS family-blind: launcher/ names no family (constants, names in strings, their own "
                           "headers' identifiers or members)")


if __name__ == "__main__":
    sys.exit(main(sys.argv))

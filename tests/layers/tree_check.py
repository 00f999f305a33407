"""What the tree checks of tests/layers (check_layers.py, check_family_blind.py) share: the
planted tree of a self-test, its verdict, and the command line `CHECK ROOT | --self-test`."""
import os
import sys
import tempfile


def planted(files, check):
    """check(root) on a scratch tree holding files ({relative path: text})."""
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        return check(root)


def self_test_verdict(what, expect, found, errors):
    """0 when the planted violations (expect) and no others were found; 1 with the lists."""
    if sorted(found) != sorted(expect):
        print("FAIL self-test: expected violations at", expect, "got:", *errors, sep="\n  ")
        return 1
    print(f"PASS {what} self-test ({len(expect)} planted violations reported, nothing else)")
    return 0


def main(argv, doc, check, self_test, label, fail_text, pass_text):
    """ROOT: check(ROOT)'s violations each on a line prefixed by label, then fail_text (with {n})
    or pass_text; --self-test: self_test(); anything else: doc, exit 2."""
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(doc, file=sys.stderr)
        return 2
    errors = check(argv[1])
    for e in errors:
        print(label, e)
    if errors:
        print(fail_text.format(n=len(errors)), file=sys.stderr)
        return 1
    print(pass_text)
    return 0

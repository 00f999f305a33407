"""What test_verdict_rules.py and test_chart_rules.py share: fixture runs copied from the
committed references (results/reference/) with rows kept or edited, and the one-case runner.
Each copy holds results.csv, results.json and the older link_gbs / limits.json when the
reference has them: a run of the same machine with no charts and no summary."""
import csv
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REF = os.path.join(ROOT, "results", "reference")


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def copy_run(src, work, name, keep=None, edit=None):
    """REF/src as WORK/name: only the rows keep(row) accepts, each measured one passed through
    edit(row) first."""
    d = os.path.join(work, name)
    os.makedirs(d)
    for f in ("results.json", "link_gbs", "limits.json"):
        if os.path.exists(os.path.join(REF, src, f)):
            shutil.copy(os.path.join(REF, src, f), d)
    with open(os.path.join(REF, src, "results.csv"), newline="") as f:
        rd = csv.DictReader(f)
        cols, rows = rd.fieldnames, [r for r in rd if keep is None or keep(r)]
    for r in rows:
        if edit and r["time_us_mean"]:
            edit(r)
    with open(os.path.join(d, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return d


def main(cases, doc):
    """usage: SCRIPT CASE WORKDIR: runs cases[CASE](WORKDIR) in a fresh WORKDIR; exit 1 on a
    failed expectation, 2 on usage."""
    if len(sys.argv) != 3 or sys.argv[1] not in cases:
        print(doc, file=sys.stderr)
        return 2
    work = sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        cases[sys.argv[1]](work)
    except AssertionError as e:
        print(f"FAIL {sys.argv[1]}: {e}")
        return 1
    print(f"ok {sys.argv[1]}")
    return 0

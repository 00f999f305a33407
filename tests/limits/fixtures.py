"""What the verdict-against-the-hardware tests share (test_limits.py, test_ce_check.py): the
verdict of a run through plots/verdict.py --find (the committed references under REPO/results),
fixture runs copied from committed ones, and the expectations, collected into `problems`."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile


class Check:
    def __init__(self, repo):
        self.repo = repo
        self.nv_run = os.path.join(repo, "results/reference/h200x2/allreduce")
        self.work = tempfile.mkdtemp(prefix="cb-limits.")
        self.problems = []

    def verdict(self, run, ref=None):
        """verdict.py's output for run: against ref, or --find among the committed references."""
        where = [ref] if ref else ["--find", os.path.join(self.repo, "results")]
        p = subprocess.run([sys.executable, os.path.join(self.repo, "plots/verdict.py")] + where + [run],
                           capture_output=True, text=True, timeout=120)
        if p.returncode:
            self.problems.append(f"verdict.py {run}: exit {p.returncode}: {p.stderr}")
        return p.stdout

    def fixture(self, name, limits, nodes=None, src=None, meta=None, keep=None, edit=None):
        """A copy of a committed run's CSV (default the NVLink all-reduce run; never its link_gbs)
        with limits.json (None: none), results.json {"meta": meta} (None: none), only the rows
        keep(row) accepts, each changed by edit(row) first; the CSV gains an empty pass column."""
        d = os.path.join(self.work, name)
        os.makedirs(d)
        with open(os.path.join(src or self.nv_run, "results.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(d, "results.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) + (["pass"] if "pass" not in rows[0] else []))
            w.writeheader()
            for r in rows:
                if nodes:
                    r["nodes"] = str(nodes)
                if edit:
                    edit(r)
                if keep is None or keep(r):
                    w.writerow(r)
        if limits is not None:
            with open(os.path.join(d, "limits.json"), "w") as f:
                json.dump(limits, f)
        if meta is not None:
            with open(os.path.join(d, "results.json"), "w") as f:
                json.dump({"meta": meta, "results": []}, f)
        return d

    def expect(self, text, want, what):
        if want not in text:
            self.problems.append(f"{what}: {want!r} not in:\n{text}")

    def refuse(self, text, unwanted, what):
        """unwanted must not be in the verdict's section against the hardware."""
        if unwanted in text.split("### Against the hardware")[-1]:
            self.problems.append(f"{what}: {unwanted!r} in:\n{text}")

    def finish(self, passed):
        """Prints the problems (exit 1) or the PASS line (exit 0)."""
        shutil.rmtree(self.work, ignore_errors=True)
        for p in self.problems:
            print("FAIL:", p)
        if self.problems:
            sys.exit(1)
        print(passed)

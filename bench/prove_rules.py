#!/usr/bin/python3
"""The proof campaign over HTP rule files: `teval rules verify --prove` on
each, then the figures the issue asks for: proved / refuted / unknown
counts, solver time per rule (median, max), every refuted rule with its
counterexample's difference (and whether the solver's model or a sampled
graph refuted it), and the unknown rules grouped by reason.

Without arguments: teval's own corpus (examples/htp/split_rules.cpp and
tests/data/htp/{verify,accept,prove}/*.cpp, with the ops files their tests
use). With DIR or FILE arguments: those rule files (*.cpp, *.h) with teval's
standard ops and bench/htp_packages/ops.txt (the ops of public packages'
rules), e.g. public op packages' sources fetched next to the checkout.
"""
import argparse
import collections
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def corpus():
    """teval's own rule files, each with the ops file its test uses."""
    files = [ROOT / "examples/htp/split_rules.cpp"]
    for d in ("verify", "accept", "prove"):
        files += sorted((ROOT / "tests/data/htp" / d).glob("*.cpp"))
    out = []
    for f in files:
        text = f.read_text()
        ops = ROOT / "examples/htp/ops.txt"
        if "// verify ops: standard" in text or f.name == "prove.cpp":
            ops = None
        if f.name == "opaque.cpp":
            ops = f.with_name("opaque_ops.txt")
        out.append((f, ops))
    return out


def packages(paths):
    ops = ROOT / "bench/htp_packages/ops.txt"
    out = []
    for p in map(pathlib.Path, paths):
        found = sorted(p.rglob("*")) if p.is_dir() else [p]
        for f in found:
            if f.suffix in (".cpp", ".h", ".cc") and f.is_file() and \
                    "DEF_PACKAGE_OPTIMIZATION" in f.read_text(errors="replace"):
                out.append((f, ops))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", help="rule files or directories")
    ap.add_argument("--teval", default=str(ROOT / "build/bin/teval"))
    ap.add_argument("--timeout", type=int, default=10000, help="per query, ms")
    ap.add_argument("--cases", type=int, default=20, help="sampling's graphs")
    ap.add_argument("--json", help="write every rule's object here")
    a = ap.parse_args()
    todo = packages(a.paths) if a.paths else corpus()
    if not todo:
        sys.exit("prove_rules: no rule files found")
    rules = []
    for f, ops in todo:
        cmd = [a.teval, "rules", "verify", str(f), "--prove", "--json",
               "--cases", str(a.cases), "--timeout", str(a.timeout)]
        if ops:
            cmd += ["--ops", str(ops)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print(f"{f}: teval exited {r.returncode}: {r.stderr.strip()[:300]}")
            continue
        for line in r.stdout.splitlines():
            o = json.loads(line)
            if o.get("proof"):
                rules.append(o)
            elif o.get("verdict") is None:
                o["proof"] = "not verified"
                rules.append(o)
    if a.json:
        with open(a.json, "w") as out:
            for o in rules:
                out.write(json.dumps(o) + "\n")
    proved = [o for o in rules if o["proof"] == "proved"]
    refuted = [o for o in rules if o["proof"] == "refuted"]
    unknown = [o for o in rules if o["proof"] == "unknown"]
    skipped = [o for o in rules if o["proof"] == "not verified"]
    times = [o["solver_seconds"] for o in rules if "solver_seconds" in o]
    print(f"{len(todo)} files, {len(rules)} rules: {len(proved)} proved, "
          f"{len(refuted)} refuted, {len(unknown)} unknown"
          + (f", {len(skipped)} not verified (ops the ops files lack)" if skipped else ""))
    if times:
        print(f"solver time per rule: median {statistics.median(times):.3f} s, "
              f"max {max(times):.3f} s")
    disagree = [o for o in rules if o["proof"] == "proved" and o["verdict"] == "unsound"]
    print(f"proved rules sampling finds unsound: {len(disagree)}")
    by_solver = [o for o in refuted if not o["proof_reason"].startswith("a graph sampling drew")]
    print(f"\nrefuted ({len(by_solver)} by the solver's model, "
          f"{len(refuted) - len(by_solver)} by a sampled graph):")
    for o in refuted:
        diff = (o.get("counterexample") or {}).get("difference", "")
        print(f"  {o['file']}:{o['line']}: {diff[:160]}")
    print("\nunknown, by reason:")
    reasons = collections.Counter()
    for o in unknown:
        reason = o["proof_reason"] or ""
        reasons[reason.split(" (inputs of")[0].split("; ops taken")[0][:110]] += 1
    for reason, n in reasons.most_common():
        print(f"  {n:3d}  {reason}")
    if skipped:
        print("\nnot verified:")
        for o in skipped:
            print(f"  {o['file']}:{o['line']}")


if __name__ == "__main__":
    main()

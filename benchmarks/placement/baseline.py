#!/usr/bin/env python3
"""Placement regressions: runs the solvers on the shared throughput
workloads and the synthetic fork-join graphs and compares each objective
value and time with the committed baseline (baseline.json beside this
script: date, commit, machine).

    baseline.py [--bin build/bin] [--ip SECONDS] [--only SUBSTRING]
    baseline.py --update ...   # rewrite baseline.json from this run

Cases: the DP and the PipeDream-style split of every workload and
synthetic graph (placer-placement-bench FILE), local search from the DP
(--solve throughput local-search), and with --ip the non-contiguous MILP
at that time limit (--solve throughput ip). A case is flagged WORSE when
its objective is above the baseline's (placements minimise max-load) and
SLOW when it takes more than 1.5 times the baseline's seconds (times under
0.2 s are noise and not compared). Exits 1 when anything is flagged. A
script, not a test: timings depend on the machine, which the baseline
names.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BASELINE = os.path.join(HERE, "baseline.json")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "workloads", "throughput"))
SYNTHETIC = [(2, 200), (3, 33), (4, 13)]
SLOWER = 1.5
NOISE_SECONDS = 0.2


def bench(binary, *args):
    out = subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout
    return out.split()


def run_cases(binary, ip_limit, only):
    """(case name, objective value, seconds) for every case."""
    workloads = sorted(glob.glob(os.path.join(SHARED, "*", "*.json")))
    sources = [(os.path.relpath(w, SHARED)[:-len(".json")], [w]) for w in workloads]
    sources += [("synthetic %d x %d" % shape, ["--synthetic", str(shape[0]), str(shape[1])])
                for shape in SYNTHETIC]
    for name, args in sources:
        if only and only not in name:
            continue
        # case nodes ideals dp_sec dp_max_load pipedream lower_bound rss
        fields = bench(binary, *args)
        dp_seconds, dp, pipedream = (float(v) for v in fields[-5:-2])
        yield name + " / dp", dp, dp_seconds
        yield name + " / pipedream", pipedream, None
        if args[0] == "--synthetic":
            continue
        # name nodes objective algorithm value bound status seconds rss
        fields = bench(binary, "--solve", "throughput", "local-search", "600", *args)
        yield name + " / local-search", float(fields[-5]), float(fields[-2])
        if ip_limit:
            fields = bench(binary, "--solve", "throughput", "ip", str(ip_limit), *args)
            yield "%s / ip %gs" % (name, ip_limit), float(fields[-5]), float(fields[-2])


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return "%s, %d cores" % (cpu, os.cpu_count() or 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--ip", type=float, default=0,
                        help="also the non-contiguous MILP with this time limit")
    parser.add_argument("--only", default="", help="cases whose name contains this")
    parser.add_argument("--update", action="store_true", help="rewrite baseline.json")
    args = parser.parse_args()
    binary = os.path.join(args.bin, "placer-placement-bench")
    with open(BASELINE) as f:
        baseline = json.load(f)
    known = {c["case"]: c for c in baseline["cases"]}
    print("baseline: %s, commit %s, %s" % (baseline["date"], baseline["commit"],
                                           baseline["machine"]))
    print("%-52s %14s %14s %9s %9s  %s" % ("case", "value", "baseline", "seconds",
                                           "baseline", "flags"))
    flagged, cases = 0, []
    for name, value, seconds in run_cases(binary, args.ip, args.only):
        cases.append({"case": name, "value": value, "seconds": seconds})
        old = known.get(name)
        flags = []
        if old is None:
            flags.append("NEW")
        else:
            if value > old["value"] * (1 + 1e-9):
                flags.append("WORSE")
            if (seconds is not None and old.get("seconds") is not None and
                    max(seconds, old["seconds"]) >= NOISE_SECONDS and
                    seconds > SLOWER * old["seconds"]):
                flags.append("SLOW")
        flagged += "WORSE" in flags or "SLOW" in flags
        print("%-52s %14.6f %14s %9s %9s  %s" % (
            name, value, "%.6f" % old["value"] if old else "-",
            "%.3f" % seconds if seconds is not None else "-",
            "%.3f" % old["seconds"] if old and old.get("seconds") is not None else "-",
            " ".join(flags)))
        sys.stdout.flush()
    if args.update:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        kept = [c for c in baseline["cases"] if c["case"] not in {n["case"] for n in cases}]
        with open(BASELINE, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(), "commit": commit,
                       "machine": machine(), "cases": kept + cases}, f, indent=1)
            f.write("\n")
        print("wrote %s" % BASELINE)
        return 0
    if flagged:
        print("%d case(s) worse or slower than the baseline" % flagged)
        return 1
    print("no case worse or %.1fx slower than the baseline" % SLOWER)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Prints the key figures of a placement report, one per line, for FileCheck.

    report.py REPORT.json [EXPECTED_MAX_LOAD]

With an expected value, also prints whether max_load is within 1e-6
relative of it.
"""
import json
import sys

r = json.load(open(sys.argv[1]))
print("algorithm %s optimal %s coarsened %s" % (r["algorithm"], r["optimal"],
                                                r["coarsened"]))
print("max_load %.10g lower_bound %.10g" % (r["max_load"], r["lower_bound"]))
print("devices %d accelerators %d cpus %d" % (len(r["devices"]),
                                              r["accelerators"], r["cpus"]))
for d in r["devices"]:
    print("device %d %s load %.10g compute %.10g in %.10g out %.10g memory %.10g"
          " (weights %.10g activations %.10g)"
          % (d["device"], d["kind"], d["load"], d["compute"],
             d["communication_in"], d["communication_out"], d["memory"],
             d["weights"], d["activations"]))
print("assigned %d" % len(r["assignment"]))
if len(sys.argv) > 2:
    expected = float(sys.argv[2])
    ok = abs(r["max_load"] - expected) <= 1e-6 * expected
    print("matches %s: %s" % (sys.argv[2], "yes" if ok else "NO"))

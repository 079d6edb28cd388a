"""same_report.py A.json B.json: two placement reports that agree on
everything but the solver's seconds."""
import json
import sys

a, b = (json.load(open(path)) for path in sys.argv[1:3])
for report in (a, b):
    report.pop("solver_seconds")
if a != b:
    print("DIFFERENT")
    sys.exit(1)
print("same placement: %d nodes on %d devices, max load %g" % (
    len(a["assignment"]), len(a["devices"]), a["max_load"]))

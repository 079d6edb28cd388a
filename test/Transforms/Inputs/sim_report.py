"""Prints a simulator report (--placer-simulate report=) for FileCheck.

    sim_report.py events REPORT.json   one line per device: its compute
                                       steps in time order, as F<microbatch>@
                                       <start> (forward), B<m>@<start>
                                       (backward) or W<m>@<start> (weight),
                                       with (c<chunk>) after the microbatch
                                       under a chunked schedule
    sim_report.py memory REPORT.json   one line per device: busy time, bubble
                                       fraction, microbatches in flight and
                                       memory
    sim_report.py chunks REPORT.json   one line per chunk of each device:
                                       busy time, microbatches in flight,
                                       stash per microbatch
"""
import json
import sys

mode, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
if mode == "events":
    rows = {}
    for e in r["events"]:
        if not e["transfer"]:
            rows.setdefault(e["device"], []).append(e)
    for device in sorted(rows):
        steps = sorted(rows[device], key=lambda e: e["start"])
        print("device %d: %s" % (device, " ".join(
            "%s%d%s@%g" % (e["phase"][0].upper(), e["microbatch"],
                           "(c%d)" % e["chunk"] if "chunk" in e else "",
                           e["start"])
            for e in steps)))
elif mode == "memory":
    for d in r["devices"]:
        print("device %d: busy %g, bubble %r, in flight %d, weights %d, "
              "activations %d, peak %d"
              % (d["device"], d["busy"], d["bubble_fraction"],
                 d.get("in_flight", 0), d["param_bytes"],
                 d["peak_activation_bytes"], d["peak_bytes"]))
elif mode == "chunks":
    for d in r["devices"]:
        for c in d.get("chunks", []):
            print("device %d chunk %d: busy %g, in flight %d, stash %d"
                  % (d["device"], c["chunk"], c["busy"], c["in_flight"],
                     c["stash_bytes"]))
else:
    sys.exit("unknown mode " + mode)

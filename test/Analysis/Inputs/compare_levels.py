#!/usr/bin/env python3
"""Compares a model's costs at the graph level with the same model's after
--placer-lower-graph-to-linalg: total FLOPs (from two --placer-estimate-costs
dumps) and the optimal max load (from two --partition-devices reports).

  compare_levels.py GRAPH_DUMP LINALG_DUMP GRAPH_REPORT LINALG_REPORT

prints both figures with their relative difference and whether it is within
the bounds the docs promise (FLOPs 1%, max load 5%)."""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    graph_dump, linalg_dump, graph_report, linalg_report = map(load, sys.argv[1:])
    for label, graph, linalg, bound in (
            ("flops", graph_dump["totals"]["flops"],
             linalg_dump["totals"]["flops"], 0.01),
            ("max load", graph_report["max_load"], linalg_report["max_load"],
             0.05)):
        difference = linalg / graph - 1
        print("%s: graph %.6g, linalg %.6g, difference %+.3f%%, within %g%%: %s"
              % (label, graph, linalg, 100 * difference, 100 * bound,
                 "yes" if abs(difference) <= bound else "NO"))


if __name__ == "__main__":
    main()

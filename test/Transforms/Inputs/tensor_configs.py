#!/usr/bin/env python3
"""Prints the placer.tensor_configs of named nodes of a module, one line a
configuration (each of a degree's): name degree id time param_bytes
stash_bytes fixed_bytes, then `cache` and its cache_bytes where it has
any, and the node's placer.edge_bytes, so lit tests can compare them.

    tensor_configs.py MODULE.mlir NAME...
"""
import re
import sys

DEGREE = re.compile(r'#placer\.tensor_degree<degree = (\d+), configs = ')
CONFIG = re.compile(r'#placer\.tensor_config<id = "([^"]*)", time = ([^,]+), '
                    r'param_bytes = ([^,]+), stash_bytes = ([^,]+), '
                    r'fixed_bytes = ([^,]+),')
CACHE = re.compile(r'cache_bytes = ([^,>]+)')


def main():
    path, names = sys.argv[1], sys.argv[2:]
    lines = {}
    for line in open(path):
        m = re.search(r'graph\.node .*name = "([^"]*)"', line)
        if m and m.group(1) in names:
            lines[m.group(1)] = line
    for name in names:
        line = lines[name]
        # Each degree's text runs to the next degree's.
        parts = DEGREE.split(line)
        for degree, configs in zip(parts[1::2], parts[2::2]):
            # Each configuration's text runs to the next one's.
            for config in configs.split('#placer.tensor_config<')[1:]:
                config = '#placer.tensor_config<' + config
                cid, time, param, stash, fixed = CONFIG.match(config).groups()
                cache = CACHE.search(config)
                print(name, degree, cid, float(time), float(param),
                      float(stash), float(fixed),
                      *(("cache", float(cache.group(1))) if cache else ()))
        edges = re.search(r'placer\.edge_bytes = array<f64(?:: ([^>]*))?>', line)
        print(name, "edges", [float(x) for x in (edges.group(1) or "").split(",") if x])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Single-sample latency: how far each answer is from proven optimal.

For every latency input it can read -- ../shared/workloads/latency/*/*.json,
the files given with --inputs (e.g. the paper's other published latency
inputs, read into a scratch folder) and generated graphs of the same shapes
(a residual chain, a transformer stack, a fork-join tower; --generated) --
runs `placer-opt --partition-devices="objective=latency time-limit=T"` (the
heuristic, then CBC warm-started from it) and the heuristic alone
(`algorithm=greedy`, same limit), and prints one table row: the heuristic's
and the MILP's latency, the reported lower bound, the gap, CBC's status and
the seconds end to end.

  python3 benchmarks/placement/latency_gaps.py [--time-limit 300]
      [--inputs FILE...] [--generated] [--jobs 2]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "bin")
SHARED = os.path.join(ROOT, "..", "shared", "workloads", "latency")

# Transfers cost as in the paper's latency inputs: milliseconds per byte
# over a 2 GiB/s link.
MS_PER_BYTE = 1000 / 2**31


class Graph:
    """A workload in the paper's format, built node by node."""

    def __init__(self, accelerators, cpus, memory):
        self.data = {"maxSizePerFPGA": float(memory), "maxFPGAs": accelerators,
                     "maxCPUs": cpus, "nodes": [], "edges": []}

    def node(self, time, weights, tensor):
        """A node of accelerator time `time` (ten times that on a core)
        holding `weights` bytes and producing a `tensor`-byte output."""
        i = len(self.data["nodes"])
        self.data["nodes"].append({
            "id": i, "name": "n%d" % i, "supportedOnFpga": 1,
            "cpuLatency": 10 * time, "fpgaLatency": time, "isBackwardNode": 0,
            "colorClass": i, "size": float(weights + tensor)})
        self.tensor = getattr(self, "tensor", {})
        self.tensor[i] = tensor
        return i

    def edge(self, u, v):
        self.data["edges"].append({"sourceId": u, "destId": v,
                                   "cost": self.tensor[u] * MS_PER_BYTE,
                                   "size": float(self.tensor[u])})


def residual_chain(rng):
    """ResNet-like: 16 blocks of three convolutions beside a shortcut (a
    convolution where the stage changes), activations halving and weights
    growing per stage; 12 accelerators of 2 GiB, 8 cores."""
    g = Graph(12, 8, 2**31)
    prev = g.node(rng.uniform(5, 20), 10 << 20, 400 << 20)
    for block in range(16):
        stage = block * 4 // 16
        tensor, weights = (400 << 20) >> stage, (20 << 20) << (2 * stage)
        a = g.node(rng.uniform(0.3, 1.5), weights, tensor // 4)
        b = g.node(rng.uniform(1, 3), weights * 2, tensor // 4)
        c = g.node(rng.uniform(0.3, 1.5), weights, tensor)
        g.edge(prev, a), g.edge(a, b), g.edge(b, c)
        join = g.node(0.2, 0, tensor)
        g.edge(c, join)
        if block % 4 == 0:
            short = g.node(rng.uniform(0.5, 2), weights * 2, tensor)
            g.edge(prev, short), g.edge(short, join)
        else:
            g.edge(prev, join)
        prev = join
    return g


def transformer_stack(rng):
    """BERT-like operator graph: 6 layers of query, key and value
    projections side by side, attention, output projection, and a
    two-layer feed-forward, each with a residual add; 6 accelerators of
    600 MiB, 8 cores."""
    g = Graph(6, 8, 600 << 20)
    act = 16 << 20
    prev = g.node(1.0, 100 << 20, act)
    for layer in range(6):
        qkv = [g.node(rng.uniform(0.8, 1.2), 32 << 20, act) for _ in range(3)]
        for v in qkv:
            g.edge(prev, v)
        scores = g.node(rng.uniform(1.5, 2.5), 0, 4 * act)
        g.edge(qkv[0], scores), g.edge(qkv[1], scores)
        context = g.node(rng.uniform(1.0, 2.0), 0, act)
        g.edge(scores, context), g.edge(qkv[2], context)
        out = g.node(rng.uniform(0.8, 1.2), 32 << 20, act)
        g.edge(context, out)
        add = g.node(0.1, 0, act)
        g.edge(out, add), g.edge(prev, add)
        up = g.node(rng.uniform(3, 5), 128 << 20, 4 * act)
        down = g.node(rng.uniform(3, 5), 128 << 20, act)
        g.edge(add, up), g.edge(up, down)
        prev = g.node(0.1, 0, act)
        g.edge(down, prev), g.edge(add, prev)
    return g


def fork_join(rng):
    """Inception-like: 10 blocks of four branches of one to three
    convolutions joined by a concatenation; 12 accelerators of 2 GiB,
    8 cores."""
    g = Graph(12, 8, 2**31)
    prev = g.node(rng.uniform(10, 20), 50 << 20, 180 << 20)
    for block in range(10):
        tensor = (180 << 20) >> (block // 4)
        ends = []
        for branch in range(4):
            last = prev
            for _ in range(1 + branch % 3):
                v = g.node(rng.uniform(0.3, 1.5), 25 << 20, tensor // 4)
                g.edge(last, v)
                last = v
            ends.append(last)
        join = g.node(0.0, 0, tensor)
        for v in ends:
            g.edge(v, join)
        prev = join
    return g


GENERATED = {"generated/residual-chain": residual_chain,
             "generated/transformer-stack": transformer_stack,
             "generated/fork-join": fork_join}


def run(mlir, options, report):
    """placer-opt's latency placement of `mlir`: (report, seconds)."""
    start = time.monotonic()
    subprocess.run([os.path.join(BIN, "placer-opt"), mlir,
                    "--partition-devices=objective=latency split=false "
                    "progress=0 %s report=%s" % (options, report),
                    "-o", os.devnull],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    with open(report) as f:
        return json.load(f), seconds


def measure(name, workload, limit, work):
    base = os.path.join(work, name.replace("/", "_"))
    mlir = base + ".mlir"
    subprocess.run([os.path.join(BIN, "placer-translate"), "--import-workload",
                    workload, "-o", mlir], check=True)
    greedy, greedy_s = run(mlir, "algorithm=greedy time-limit=%g" % limit,
                           base + ".greedy.json")
    milp, milp_s = run(mlir, "time-limit=%g" % limit, base + ".milp.json")
    latency, bound = milp["latency"], milp["lower_bound"]
    gap = (latency - bound) / latency if latency > 0 else 0
    return ("| %s | %.3f | %.1f | %.3f | %.3f | %.1f%% | %s | %.1f |" %
            (name, greedy["latency"], greedy_s, latency, bound, 100 * gap,
             milp.get("solver_status", "-"), milp_s))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=300)
    parser.add_argument("--inputs", nargs="*", default=[],
                        help="more latency inputs in the paper's format")
    parser.add_argument("--generated", action="store_true",
                        help="also the generated residual chain, transformer "
                             "stack and fork-join tower (seeded)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not os.path.exists(os.path.join(BIN, "placer-opt")):
        subprocess.run(["bash", os.path.join(ROOT, "scripts", "build.sh")],
                       check=True)
    with tempfile.TemporaryDirectory() as work:
        cases = [(os.path.relpath(f, SHARED)[:-5], f)
                 for f in sorted(glob.glob(os.path.join(SHARED, "*", "*.json")))]
        cases += [(os.path.basename(f)[:-5], f) for f in args.inputs]
        if args.generated:
            for name, build in GENERATED.items():
                path = os.path.join(work, os.path.basename(name) + ".json")
                with open(path, "w") as f:
                    json.dump(build(random.Random(2020)).data, f)
                cases.append((name, path))
        print("| input | heuristic | s | MILP | lower bound | gap | CBC | s |")
        print("|---|---|---|---|---|---|---|---|")
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            rows = pool.map(lambda c: measure(c[0], c[1], args.time_limit, work),
                            cases)
            for row in rows:
                print(row, flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Places, splits and simulates a chain of uniform training ops under a
pipeline schedule for several device and microbatch counts, and prints the
simulated idle over busy time next to the schedule's formula.

    uniform_pipeline.py SCHEDULE CHUNKS

The chain has devices x CHUNKS ops, each 1 s forward and 2 s backward (a
schedule that splits the backward runs 1 s of it as weight gradients), so
every chunk of the schedule holds one op (F = B = W where the backward is
split). --placer-place-devices chooses the split; placer-opt must be on
PATH. Combinations the schedule refuses (interleaving needs the
microbatches to be a multiple of the devices) are skipped, and so are those
the zero-bubble formulas do not cover (fewer microbatches than devices).
"""
import json
import os
import subprocess
import sys
import tempfile

schedule, chunks = sys.argv[1], int(sys.argv[2])
formula = {
    "1f1b": ("(p-1)/m", lambda p, m: (p - 1) / m),
    "interleaved": ("(p-1)/(v m)", lambda p, m: (p - 1) / (chunks * m)),
    "zb-h1": ("(p-1)/(3m)", lambda p, m: (p - 1) / (3 * m)),
    "zb-v": ("(p-1)/(6m)", lambda p, m: (p - 1) / (6 * m)),
}[schedule]


def chain(devices):
    cost = ('#placer.cost<param_bytes = 1000, output_bytes = 16, '
            'time = {acc = 1.0 : f64}, backward_time = {acc = 2.0 : f64}, '
            'training_param_bytes = 2000>')
    lines = [
        'module attributes {placer.cluster = #placer.cluster<kinds = '
        '[#placer.kind<name = "acc", device_class = accelerator, count = %d, '
        'peak_flops = {default = 1.0}, memory_bandwidth = 1.0, '
        'memory_capacity = 1000000.0>], default_link = #placer.link<'
        'bandwidth = 1.0e30>, training = #placer.training<schedule = "1f1b", '
        'microbatches = 4, optimizer_state_factor = 0.0>>} {' % devices,
        '  func.func @main_graph(%x0: tensor<4xf32>) -> tensor<4xf32> {']
    n = devices * chunks
    for i in range(n):
        lines.append('    %%x%d = graph.node "Op"(%%x%d) attributes '
                     '{name = "op%d", output_names = ["y"], placer.cost = %s, '
                     'version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>'
                     % (i + 1, i, i, cost))
    lines += ['    return %%x%d : tensor<4xf32>' % n, '  }', '}']
    return "\n".join(lines) + "\n"


with tempfile.TemporaryDirectory() as work:
    for p in (2, 4, 8):
        for m in (4, 8, 16):
            if schedule == "interleaved" and m % p:
                continue
            if schedule.startswith("zb-") and m < p:
                continue
            source = os.path.join(work, "chain.mlir")
            report = os.path.join(work, "report.json")
            with open(source, "w") as f:
                f.write(chain(p))
            subprocess.run(
                ["placer-opt", source, "-o", os.devnull,
                 "--placer-place-devices=devices=%d schedule=%s "
                 "microbatches=%d" % (p, schedule, m),
                 "--placer-split-devices",
                 "--placer-simulate=report=" + report],
                check=True, stderr=subprocess.DEVNULL)
            r = json.load(open(report))
            busy = sum(d["busy"] for d in r["devices"])
            idle = len(r["devices"]) * r["total"] - busy
            name, expected = formula
            print("%s p=%d m=%d: %d devices, idle/busy %.6f, %s %.6f"
                  % (schedule, p, m, len(r["devices"]), idle / busy, name,
                     expected(p, m)))

"""Accelerator kinds and links of the placement benchmarks' clusters, from
their datasheets (the cluster JSON of docs/CostModel.md), written once for
clusters.sh and kinds.sh."""


def gpu(name, count, flops, bandwidth, gib):
    """A kind from its datasheet: f64, f32, tf32, f16 (= bf16) FLOP/s."""
    f64, f32, tf32, f16 = flops
    return {"name": name, "type": "accelerator", "count": count,
            "peak_flops": {"f64": f64, "f32": f32, "tf32": tf32, "f16": f16,
                           "bf16": f16, "default": f32},
            "memory_bandwidth": bandwidth, "memory_capacity": gib * 2**30,
            "op_overhead": 5e-6}


def a100(count):
    return gpu("a100", count, (9.7e12, 19.5e12, 156e12, 312e12), 2039e9, 80)


def v100(count):
    return gpu("v100", count, (7.8e12, 15.7e12, 15.7e12, 125e12), 900e9, 16)


NVLINK = {"bandwidth": 300e9, "latency": 5e-6}
NETWORK = {"bandwidth": 12.5e9, "latency": 1e-5}

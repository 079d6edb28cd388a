"""Placer: optimal placement of a DNN's operators on several devices.

Import an ONNX model, partition it over accelerators (Tarnawski et al.,
NeurIPS 2020: an exact DP over the graph's ideals, or integer programs),
export one ONNX model per device, simulate the pipeline, or compile the model
for this machine and run it on NumPy arrays::

    import placer
    model = placer.import_onnx("mlp4.onnx", dims={"batch": 8})
    placement = model.partition(devices=4)
    placement.report["max_load"], placement.devices["block0/matmul"]
    stages, manifest = placement.stages()
    outputs = placer.compile(model).run({"x": x})

Everything goes through Placer's C API (libPlacerCAPI), the library the
command-line tools use too. Failures raise `placer.Error`, whose message
holds Placer's diagnostics.
"""

import json
import os

from . import _placer
from ._placer import Error

__all__ = [
    "Error",
    "Module",
    "Placement",
    "Session",
    "compile",
    "import_onnx",
    "import_workload",
    "simulate",
]

# Python names of --partition-devices options that differ from the pass
# option once underscores become dashes.
_OPTION_ALIASES = {"memory_limit": "memory"}


def _option(name, value):
    """One pass option, `key=value`, as MLIR's pipeline parser reads it."""
    key = _OPTION_ALIASES.get(name, name).replace("_", "-")
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (list, tuple)):
        text = ",".join(str(v) for v in value)
    else:
        text = str(value)
    if '"' in text:
        raise Error("option %s: a value may not contain '\"'" % name)
    if any(c in text for c in " {}=,") and not isinstance(value, (list, tuple)):
        text = '"%s"' % text
    return "%s=%s" % (key, text)


def _dims_text(dims):
    if dims is None:
        return ""
    if isinstance(dims, dict):
        return ",".join("%s=%s" % item for item in dims.items())
    # ["batch=1", ...]: the importer checks each entry.
    return ",".join(str(entry) for entry in dims)


class Module:
    """An MLIR module of Placer's graph dialect (an imported model, or a
    placed and split one). `str(module)` prints it."""

    def __init__(self, handle):
        self._handle = handle

    def __str__(self):
        return str(self._handle)

    def clone(self):
        return Module(self._handle.clone())

    def run_pipeline(self, pipeline):
        """Runs a textual pass pipeline in place, e.g.
        "placer-estimate-costs,placer-place-devices{devices=2}"; returns the
        passes' reports as (pass, dict) pairs."""
        return [(p, json.loads(r)) for p, r in self._handle.run_pipeline(pipeline)]

    def partition(self, devices=4, **options):
        """Costs, the optimal placement and the split into one program per
        device (the --partition-devices pipeline) on a copy of this module.
        `options` are the pipeline's options by name (cluster, algorithm,
        objective, training, schedule, microbatches, memory_limit,
        time_limit, replication, ...; docs/Placement.md). `devices` is a
        positive count, or None for every accelerator of the cluster."""
        if devices is not None and (isinstance(devices, bool) or
                                    not isinstance(devices, int) or devices <= 0):
            raise Error("devices must be a positive number of accelerators "
                        "(None: all of the cluster's), not %r" % (devices,))
        text = " ".join(
            ([_option("devices", devices)] if devices is not None else [])
            + [_option(k, v) for k, v in sorted(options.items())])
        module = self.clone()
        reports = module.run_pipeline("partition-devices{%s}" % text)
        report = next(
            (r for p, r in reversed(reports) if p == "placer-place-devices"),
            None)
        if report is None:  # export-lp: the model was written, not solved
            raise Error("partition-devices made no placement (options: %s)" % text)
        return Placement(module, report)

    def to_onnx(self):
        """The graph as a serialized ONNX model (bytes)."""
        return self._handle.export_onnx()


class Placement:
    """A placed and split model: `module` (one function per device),
    `report` (loads, bounds, optimality, transfers, per-device figures;
    docs/Placement.md) and `devices` (node name -> device)."""

    def __init__(self, module, report):
        self.module = module
        self.report = report
        self.devices = dict(report.get("assignment", {}))

    def __repr__(self):
        return "Placement(%s, max_load=%g, optimal=%s, %d nodes)" % (
            self.report.get("algorithm"), self.report.get("max_load", 0),
            self.report.get("optimal"), len(self.devices))

    def stage_files(self, embed_weights=True):
        """The per-device export as {file name: bytes}: stage models, weight
        files (none with embed_weights) and manifest.json."""
        return dict(self.module._handle.export_stages(embed_weights))

    def stages(self, embed_weights=True):
        """(models, manifest): one ONNX model per stage, in stage order (an
        onnx.ModelProto when the onnx package is installed, else bytes), and
        the manifest that wires them (docs/Split.md). Weights are embedded in
        the models unless embed_weights=False (then see export_stages)."""
        files = self.stage_files(embed_weights)
        manifest = json.loads(files["manifest.json"])
        try:
            import onnx
        except ImportError:
            onnx = None
        models = []
        for stage in manifest["stages"]:
            data = files[stage["model"]]
            models.append(onnx.load_from_string(data) if onnx else data)
        return models, manifest

    def export_stages(self, directory, embed_weights=False):
        """Writes the stage files into `directory`; returns the manifest."""
        files = self.stage_files(embed_weights)
        os.makedirs(directory, exist_ok=True)
        for name, data in files.items():
            # Names are the exporter's own (stage<i>_device<d>.onnx, ...).
            with open(os.path.join(directory, os.path.basename(name)), "wb") as f:
                f.write(data)
        return json.loads(files["manifest.json"])

    def simulate(self, microbatches=16):
        return simulate(self, microbatches)


class Session:
    """A model compiled for this machine (cached on disk). `inputs` and
    `outputs` describe its tensors (name, dtype, shape of all microbatches
    stacked on the first axis). `threads` run the code's parallel loops
    (the images of a batch)."""

    def __init__(self, module, profile=False, microbatches=1, cache_dir=None,
                 threads=1):
        self._module = module
        self._options = (microbatches, cache_dir or "", threads)
        self._session = _placer.Session(module._handle, profile, microbatches,
                                        cache_dir or "", threads)
        self._profiled = self._session if profile else None

    @property
    def inputs(self):
        return self._session.inputs

    @property
    def outputs(self):
        return self._session.outputs

    @property
    def cached(self):
        """Whether the compiled code came from the cache."""
        return self._session.cached

    @property
    def threads(self):
        """The threads the code's oneDNN calls and parallel loops run on:
        the `threads` asked for, or 1 for code that has neither (a GPU
        machine's CPU stages)."""
        return self._session.threads

    def run(self, inputs):
        """{input name: array} -> {output name: array}. Arrays of the input's
        dtype in C order are read in place, in another order copied; an
        array of another dtype is refused (as placer-run refuses such a
        .npy); lists and scalars are made arrays of the input's dtype. The GIL is released while the model runs."""
        return self._session.run(inputs)

    def profile(self, inputs=None, repeat=10):
        """Times every node over `repeat` runs (after one warm-up): node
        name -> mean seconds per microbatch. Inputs not given are seeded
        random. Compiles a profiling build of the model the first time."""
        if self._profiled is None:
            microbatches, cache_dir, threads = self._options
            self._profiled = _placer.Session(self._module._handle, True,
                                             microbatches, cache_dir, threads)
        given = dict(inputs or {})
        import numpy as np
        rng = np.random.default_rng(0)
        for spec in self._profiled.inputs:
            if spec["name"] not in given:
                if any(d < 0 for d in spec["shape"]):
                    raise Error("input '%s' has dynamic dims %s: give it to "
                                "profile" % (spec["name"], spec["shape"]))
                values = rng.uniform(-1, 1, spec["shape"])
                given[spec["name"]] = values.astype(spec["dtype"])
        return json.loads(self._profiled.profile(given, repeat))


def import_onnx(model, dims=None, shapes_only=False):
    """Imports an ONNX model: a path, serialized bytes or an
    onnx.ModelProto. `dims` binds symbolic dims ({"batch": 1});
    `shapes_only` never opens external weight files."""
    text = _dims_text(dims)
    if isinstance(model, (str, os.PathLike)):
        return Module(_placer.import_onnx_file(os.fspath(model), text,
                                               shapes_only))
    if hasattr(model, "SerializeToString"):
        model = model.SerializeToString()
    if isinstance(model, (bytes, bytearray, memoryview)):
        return Module(_placer.import_onnx_bytes(bytes(model), ".", text,
                                                shapes_only))
    raise TypeError("import_onnx: expected a path, bytes or onnx.ModelProto, "
                    "got %s" % type(model).__name__)


def import_workload(path):
    """Imports a workload JSON file: the seed paper's format, or Piper's
    (layers with tensor-parallel configurations, planned in three
    dimensions by `partition`; docs/Placement.md)."""
    return Module(_placer.import_workload_file(os.fspath(path)))


def compile(module, profile=False, microbatches=1, cache_dir=None, threads=1):
    """Compiles a Module (or a Placement's split module, run merged back)
    for this machine; `threads` run its parallel loops."""
    if isinstance(module, Placement):
        module = module.module
    if not isinstance(module, Module):
        raise TypeError("compile: expected a placer.Module or Placement, got %s"
                        % type(module).__name__)
    return Session(module, profile=profile, microbatches=microbatches,
                   cache_dir=cache_dir, threads=threads)


def simulate(placement, microbatches=16):
    """Runs the placement's split program on its cluster model for
    `microbatches` samples: latency, time_per_sample, bubble_fraction, total,
    per-device figures and events (docs/Simulator.md)."""
    module = placement.module if isinstance(placement, Placement) else placement
    return json.loads(module._handle.simulate(microbatches))

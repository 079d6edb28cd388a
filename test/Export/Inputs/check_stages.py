"""Checks a per-device export against the model it came from.

    check_stages.py ORIGINAL.onnx STAGES_DIR

Prints one line per check, for FileCheck:
- each stage model passes onnx.checker;
- chaining the stages as the manifest says works: every stage input is a
  graph input or the output of an earlier stage, and every transfer leaves
  an output of its sending stage for an input of its receiving stage;
- the stages together hold every node of the original graph exactly once;
- external weights: every location is a plain file name in the stage
  folder, and (unless the manifest says the data was not written) each
  stage's bytes equal the original's.
"""
import collections
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.external_data_helper import uses_external_data

original_path, stages_dir = sys.argv[1], sys.argv[2]
manifest = json.load(open(os.path.join(stages_dir, "manifest.json")))
original = onnx.load(original_path, load_external_data=False)

graph_inputs = {i["name"] for i in manifest["graph_inputs"]}
available = set(graph_inputs)
nodes = collections.Counter()
for stage in manifest["stages"]:
    path = os.path.join(stages_dir, stage["model"])
    model = onnx.load(path, load_external_data=False)
    try:
        # By path: external data resolves against the stage's directory.
        onnx.checker.check_model(path)
        verdict = "checker ok"
    except Exception as e:  # a verdict to print
        verdict = "checker failed: %s" % str(e).splitlines()[0]
    missing = [i.name for i in model.graph.input if i.name not in available]
    print("stage %d device %d: %d nodes, %s, %s" % (
        stage["stage"], stage["device"], len(model.graph.node), verdict,
        "inputs ready" if not missing else "MISSING %s" % missing))
    available.update(o.name for o in model.graph.output)
    nodes.update(n.name or n.output[0] for n in model.graph.node)

stage_io = {s["stage"]: (set(s["inputs"]), set(s["outputs"]))
            for s in manifest["stages"]}
bad = [t for t in manifest["transfers"]
       if t["tensor"] not in stage_io[t["from_stage"]][1]
       or t["tensor"] not in stage_io[t["to_stage"]][0]]
print("transfers: %d, %s" % (len(manifest["transfers"]),
                             "wired" if not bad else "BROKEN %s" % bad))
expected = collections.Counter(n.name or n.output[0] for n in original.graph.node)
print("nodes: %d of %d, %s" % (sum(nodes.values()), sum(expected.values()),
                               "each exactly once" if nodes == expected
                               else "DIFFERENT"))
external, outside, differ, written = 0, [], [], True
reference = None
for stage in manifest["stages"]:
    path = os.path.join(stages_dir, stage["model"])
    model = onnx.load(path, load_external_data=False)
    tensors = [t for t in model.graph.initializer if uses_external_data(t)]
    if not tensors:
        continue
    written = written and stage["weights"]["written"]
    for t in tensors:
        location = {e.key: e.value for e in t.external_data}["location"]
        if os.path.isabs(location) or "/" in location or ".." in location:
            outside.append(location)
    external += len(tensors)
    if not stage["weights"]["written"]:
        continue
    if reference is None:
        reference = {t.name: numpy_helper.to_array(t)
                     for t in onnx.load(original_path).graph.initializer}
    loaded = onnx.load(path)
    for t in loaded.graph.initializer:
        if t.name in reference and not np.array_equal(numpy_helper.to_array(t), reference[t.name]):
            differ.append(t.name)
print("weights: %d external, %s, %s" % (
    external, "in the stage folders" if not outside else "OUTSIDE %s" % outside,
    ("equal to the original" if not differ else "DIFFERENT %s" % differ)
    if written else "not written"))
outputs = {o["name"] for o in manifest["graph_outputs"]}
print("graph outputs: %s" % ("all produced" if outputs == {o.name for o in original.graph.output}
                             else "DIFFERENT"))

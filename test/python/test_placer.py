"""The Python package: import, partition, stages, simulation, compiled runs.

Run by ctest (test `python`) with the build tree's package on PYTHONPATH;
the bundled example, examples/mlp4.onnx, is four residual MLP blocks on
x[batch, 32].
"""
import json
import os
import pathlib

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper, TensorProto

import placer

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP4 = ROOT / "examples" / "mlp4.onnx"
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="module")
def model():
    return placer.import_onnx(str(MLP4), dims={"batch": 8})


@pytest.fixture(scope="module")
def x():
    return np.random.default_rng(11).standard_normal((8, 32)).astype(np.float32)


def reference(x):
    """numpy's mlp4."""
    w = {t.name: numpy_helper.to_array(t)
         for t in onnx.load(str(MLP4)).graph.initializer}
    for i in range(4):
        p = "block%d." % i
        h = np.maximum(x @ w[p + "w1"] + w[p + "b1"], 0)
        x = x + (h @ w[p + "w2"] + w[p + "b2"])
    return x


# --- import ---------------------------------------------------------------

def test_import_from_path_bytes_and_proto_agree():
    proto = onnx.load(str(MLP4))
    texts = {str(placer.import_onnx(m, dims={"batch": 8}))
             for m in (str(MLP4), MLP4, MLP4.read_bytes(), proto)}
    assert len(texts) == 1
    text = texts.pop()
    assert "tensor<8x32xf32>" in text
    assert text.count('graph.node "MatMul"') == 8


def test_dims_are_bound():
    unbound = str(placer.import_onnx(str(MLP4)))
    assert "tensor<8x32xf32>" not in unbound
    assert "tensor<3x32xf32>" in str(placer.import_onnx(str(MLP4), dims=["batch=3"]))


def test_bad_model_raises_with_the_diagnostic(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a protobuf")
    with pytest.raises(placer.Error, match="bad.onnx"):
        placer.import_onnx(str(bad))
    with pytest.raises(placer.Error, match="cannot"):
        placer.import_onnx(str(tmp_path / "missing.onnx"))
    with pytest.raises(placer.Error, match="dims"):
        placer.import_onnx(str(MLP4), dims=["batch"])
    with pytest.raises(TypeError):
        placer.import_onnx(42)


def test_onnx_round_trip(model):
    again = onnx.load_from_string(model.to_onnx())
    original = onnx.load(str(MLP4))
    assert [n.name for n in again.graph.node] == [n.name for n in original.graph.node]
    assert {t.name for t in again.graph.initializer} == \
        {t.name for t in original.graph.initializer}


# --- partition --------------------------------------------------------------

def test_partition_report_devices_and_split_module(model):
    placement = model.partition(devices=4)
    report = placement.report
    assert report["objective"] == "throughput"
    assert report["optimal"] is True
    assert report["accelerators"] == 4
    assert len(report["devices"]) == 4
    assert report["max_load"] == pytest.approx(max(d["load"] for d in report["devices"]))
    # Proven optimal: the bound meets the load (up to rounding).
    assert report["lower_bound"] == pytest.approx(report["max_load"], rel=1e-9)
    assert report["gap"] < 1e-9
    # Every ONNX node is placed, and nothing else (not the function's
    # return), contiguously: block i's ops on one device.
    assert set(placement.devices) == \
        {n.name for n in onnx.load(str(MLP4)).graph.node}
    assert placement.devices["output"] in range(4)
    assert placement.devices["block0/fc1"] == placement.devices["block0/relu"]
    assert sorted(set(placement.devices.values())) == [0, 1, 2, 3]
    text = str(placement.module)
    assert "dist.program" in text and "dist.send" in text
    # The model partitioned is a copy: the import is left as it was.
    assert "dist.program" not in str(model)


def test_partition_options_are_honoured(model):
    two = model.partition(devices=2)
    assert two.report["accelerators"] == 2
    assert sorted(set(two.devices.values())) == [0, 1]
    # A memory limit that only three blocks' weights fit in forces a
    # split: (32*128 + 128 + 128*32 + 32) * 4 bytes per block.
    block = (32 * 128 + 128 + 128 * 32 + 32) * 4
    limited = model.partition(devices=2, memory_limit=3 * block,
                              activations=False)
    assert limited.report["memory_limit"] == 3 * block
    assert all(d["weights"] <= 3 * block for d in limited.report["devices"])
    ip = model.partition(devices=2, algorithm="ip", time_limit=30)
    assert ip.report["algorithm"].startswith("ip")
    assert ip.report["max_load"] == pytest.approx(two.report["max_load"], rel=1e-6)
    latency = model.partition(devices=2, objective="latency")
    assert latency.report["objective"] == "latency"
    assert latency.report["latency"] > 0


def test_partition_errors_are_exceptions(model):
    with pytest.raises(placer.Error, match="no-such-option"):
        model.partition(devices=2, no_such_option=1)
    with pytest.raises(placer.Error, match="accelerators"):
        model.partition(devices=1000)
    with pytest.raises(placer.Error, match="algorithm"):
        model.partition(devices=2, algorithm="magic")
    # The message holds the reason, not only "cannot parse": a misspelt key
    # lists the options there are, a value of the wrong type names its key.
    with pytest.raises(placer.Error,
                       match=r"no such option algoritm \(options: activations, algorithm, "):
        model.partition(devices=2, algoritm="dp")
    with pytest.raises(placer.Error,
                       match="option 'memory': '1GB' is not a value of its type"):
        model.partition(devices=2, memory="1GB")
    for count in (0, -2, 1.5, True):
        with pytest.raises(placer.Error, match="devices must be a positive number"):
            model.partition(devices=count)


def test_run_pipeline_returns_reports(model):
    module = model.clone()
    reports = module.run_pipeline(
        "placer-estimate-costs,placer-place-devices{devices=3}")
    assert [p for p, _ in reports] == ["placer-place-devices"]
    assert reports[0][1]["accelerators"] == 3
    assert "placer.device" in str(module)
    with pytest.raises(placer.Error, match="pass pipeline"):
        module.run_pipeline("no-such-pass")


# --- stages and simulation ----------------------------------------------------

def test_stages_are_onnx_models_wired_by_the_manifest(model):
    placement = model.partition(devices=4)
    models, manifest = placement.stages()
    assert len(models) == len(manifest["stages"]) == 4
    names = set()
    for stage_model in models:
        onnx.checker.check_model(stage_model)
        names |= {n.name for n in stage_model.graph.node}
    assert names == {n.name for n in onnx.load(str(MLP4)).graph.node}
    # Each transfer leaves one stage as an output and enters the next.
    for transfer in manifest["transfers"]:
        sender = models[transfer["from_stage"]].graph
        receiver = models[transfer["to_stage"]].graph
        assert transfer["tensor"] in {o.name for o in sender.output}
        assert transfer["tensor"] in {i.name for i in receiver.input}


def test_stages_chained_in_placer_equal_the_whole_model(model, x, tmp_path):
    """Every stage model, compiled and run by Placer in manifest order,
    reproduces the whole model's output."""
    models, manifest = model.partition(devices=4).stages()
    values = {"x": x}
    for stage, stage_model in zip(manifest["stages"], models):
        session = placer.compile(placer.import_onnx(stage_model),
                                 cache_dir=str(tmp_path))
        outputs = session.run({i: values[i] for i in stage["inputs"]})
        values.update(outputs)
    whole = placer.compile(model, cache_dir=str(tmp_path)).run({"x": x})
    assert np.array_equal(values["y"], whole["y"])


def test_export_stages_writes_files(model, tmp_path):
    manifest = model.partition(devices=2).export_stages(str(tmp_path / "st"))
    files = sorted(os.listdir(tmp_path / "st"))
    assert files == sorted(["manifest.json"] +
                           [s["model"] for s in manifest["stages"]])
    assert json.load(open(tmp_path / "st" / "manifest.json")) == manifest


def test_simulate(model):
    placement = model.partition(devices=4)
    one = placer.simulate(placement, microbatches=1)
    many = placer.simulate(placement, microbatches=16)
    assert many["microbatches"] == 16
    assert len(many["sample_finish"]) == 16
    # A pipeline: the first sample's latency is the same, the steady state
    # is paced by the slowest stage, below the latency.
    assert many["latency"] == pytest.approx(one["latency"])
    assert 0 < many["time_per_sample"] < many["latency"]
    assert 0 <= many["bubble_fraction"] < 1
    assert placement.simulate(16) == many
    with pytest.raises(placer.Error, match="split"):
        placer.simulate(model)


# --- compiled runs ------------------------------------------------------------

def test_compile_and_run_matches_numpy(model, x, tmp_path):
    session = placer.compile(model, cache_dir=str(tmp_path))
    assert [i["name"] for i in session.inputs] == ["x"]
    assert session.inputs[0]["shape"] == (8, 32)
    assert session.outputs[0]["dtype"] == np.float32
    y = session.run({"x": x})["y"]
    assert y.shape == (8, 32) and y.dtype == np.float32
    np.testing.assert_allclose(y, reference(x), atol=1e-5)
    assert not session.cached
    assert placer.compile(model, cache_dir=str(tmp_path)).cached


def test_dynamic_batch_compiles_once_for_every_size(tmp_path):
    module = placer.import_onnx(str(MLP4))  # batch left symbolic
    session = placer.compile(module, cache_dir=str(tmp_path))
    assert session.inputs[0]["shape"] == (-1, 32)
    rng = np.random.default_rng(5)
    for batch in (1, 5, 8):
        x = rng.standard_normal((batch, 32)).astype(np.float32)
        y = session.run({"x": x})["y"]
        assert y.shape == (batch, 32)
        np.testing.assert_allclose(y, reference(x), atol=1e-5)
    assert placer.compile(module, cache_dir=str(tmp_path)).cached
    with pytest.raises(placer.Error,
                       match="needs shape \\[batch, 32\\], got \\[4, 31\\]"):
        session.run({"x": np.zeros((4, 31), np.float32)})
    with pytest.raises(placer.Error, match="'x' has dynamic dims"):
        session.profile(repeat=1)
    assert "block0/fc1" in session.profile({"x": x}, repeat=1)
    # Placement prices sizes: the symbol's size is an option.
    with pytest.raises(placer.Error, match="symbolic dims without sizes \\(batch\\)"):
        module.partition(devices=2)
    bound = placer.import_onnx(str(MLP4), dims={"batch": 8}).partition(devices=2)
    late = module.partition(devices=2, dims="batch=8")
    assert late.report["max_load"] == bound.report["max_load"]


def test_threads_run_the_parallel_loops(model, x, tmp_path):
    """A dynamic batch's items run on the threads asked for: the same
    outputs; a static model's products (oneDNN calls) too."""
    dynamic = placer.import_onnx(str(MLP4))
    one = placer.compile(dynamic, cache_dir=str(tmp_path))
    two = placer.compile(dynamic, cache_dir=str(tmp_path), threads=2)
    assert (one.threads, two.threads) == (1, 2)
    assert np.array_equal(one.run({"x": x})["y"], two.run({"x": x})["y"])
    assert placer.compile(model, cache_dir=str(tmp_path), threads=2).threads == 2
    with pytest.raises(placer.Error, match="threads must be between 1 and 1024, got 0"):
        placer.compile(model, cache_dir=str(tmp_path), threads=0)


def test_split_run_equals_the_whole_model(model, x, tmp_path):
    whole = placer.compile(model, cache_dir=str(tmp_path)).run({"x": x})["y"]
    split = placer.compile(model.partition(devices=4),
                           cache_dir=str(tmp_path)).run({"x": x})["y"]
    assert np.array_equal(whole, split)


def test_inputs_are_converted_or_refused(model, x, tmp_path):
    session = placer.compile(model, cache_dir=str(tmp_path))
    want = session.run({"x": x})["y"]
    # A Fortran-ordered array: a C-ordered copy; a list: made float32.
    assert np.array_equal(session.run({"x": np.asfortranarray(x)})["y"], want)
    assert np.array_equal(session.run({"x": x.tolist()})["y"], want)
    # Another dtype is refused, as placer-run refuses a float64 .npy.
    with pytest.raises(placer.Error, match="input 'x' needs float32, got float64"):
        session.run({"x": x.astype(np.float64)})
    with pytest.raises(placer.Error, match="needs f32 \\[8, 32\\], got f32 \\[4, 32\\]"):
        session.run({"x": x[:4]})
    with pytest.raises(placer.Error, match="float32"):
        session.run({"x": x.astype(np.complex64)})
    with pytest.raises(placer.Error, match="no input named 'z'"):
        session.run({"x": x, "z": x})
    with pytest.raises(placer.Error, match="'x' is not given"):
        session.run({})


def test_half_precision_runs_on_numpy_arrays(tmp_path):
    """float16 tensors are NumPy float16 arrays; bfloat16 ones, which NumPy
    lacks, their uint16 bits (as placer-run's .npy files and ONNX's
    numpy_helper hold them)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((3, 3)).astype(np.float32)
    want = a @ b + a
    for elem, dtype in ((TensorProto.FLOAT16, np.float16),
                        (TensorProto.BFLOAT16, np.uint16)):
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["a", "b"], ["p"]),
             helper.make_node("Add", ["p", "a"], ["c"])], "half",
            [helper.make_tensor_value_info("a", elem, [2, 3]),
             helper.make_tensor_value_info("b", elem, [3, 3])],
            [helper.make_tensor_value_info("c", elem, [2, 3])])
        model = placer.import_onnx(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]))
        session = placer.compile(model, cache_dir=str(tmp_path))
        assert session.inputs[0]["dtype"] == dtype
        assert session.outputs[0]["dtype"] == dtype
        if dtype == np.float16:
            inputs = {"a": a.astype(np.float16), "b": b.astype(np.float16)}
            c = session.run(inputs)["c"]
            assert c.dtype == np.float16
            np.testing.assert_allclose(c.astype(np.float32), want, rtol=2e-2, atol=2e-2)
        else:
            bits = lambda v: (v.view(np.uint32) >> 16).astype(np.uint16)  # noqa: E731
            c = session.run({"a": bits(a), "b": bits(b)})["c"]
            assert c.dtype == np.uint16
            value = (c.astype(np.uint32) << 16).view(np.float32)
            np.testing.assert_allclose(value, want, rtol=6e-2, atol=6e-2)
        with pytest.raises(placer.Error, match="needs"):
            session.run({"a": a, "b": b})  # float32 arrays: refused


def test_microbatches_are_stacked(model, x, tmp_path):
    session = placer.compile(model, microbatches=3, cache_dir=str(tmp_path))
    assert session.inputs[0]["shape"] == (24, 32)
    stacked = np.concatenate([x, 2 * x, -x])
    y = session.run({"x": stacked})["y"]
    for m, scale in enumerate((1, 2, -1)):
        np.testing.assert_allclose(y[8 * m:8 * m + 8], reference(scale * x),
                                   atol=1e-4)
    # np.stack'ed microbatches hold the same bytes.
    assert np.array_equal(session.run({"x": stacked.reshape(3, 8, 32)})["y"], y)


def test_profile_times_every_node(model, x, tmp_path):
    session = placer.compile(model, cache_dir=str(tmp_path))
    times = session.profile({"x": x}, repeat=3)
    assert "block0/fc1" in times and "output" in times
    assert len(times) == len(onnx.load(str(MLP4)).graph.node)
    assert all(t >= 0 for t in times.values())
    assert times["block0/fc1"] > 0
    assert set(session.profile(repeat=1)) == set(times)


def test_shapes_only_models_do_not_run(tmp_path):
    resnet = SHARED / "models" / "resnet50.onnx"
    if not resnet.exists():
        pytest.skip("../shared/models/resnet50.onnx is absent")
    module = placer.import_onnx(str(resnet), dims={"batch": 1}, shapes_only=True)
    with pytest.raises(placer.Error, match="resnet50_ext.onnx.data"):
        placer.compile(module, cache_dir=str(tmp_path))


def test_external_weights_are_embedded_or_kept_beside(tmp_path, x):
    """A model whose weights live in a data file: stages() embeds them in
    each stage model; export_stages keeps one data file per stage."""
    model = onnx.load(str(MLP4))
    onnx.save(model, str(tmp_path / "ext.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="ext.data",
              size_threshold=0)
    module = placer.import_onnx(str(tmp_path / "ext.onnx"), dims={"batch": 8})
    placement = module.partition(devices=2)
    embedded = placement.stage_files(embed_weights=True)
    assert not [n for n in embedded if n.endswith(".data")]
    models, manifest = placement.stages()
    assert all("weights" not in stage for stage in manifest["stages"])
    for stage_model in models:
        assert not any(t.external_data for t in stage_model.graph.initializer)
    kept = placement.export_stages(str(tmp_path / "stages"))
    data = sorted(s["weights"]["file"] for s in kept["stages"])
    assert data == ["stage0_device0.data", "stage1_device1.data"]
    assert all((tmp_path / "stages" / f).stat().st_size > 0 for f in data)
    # The embedded stages compute what the whole model does.
    values = {"x": x}
    for stage, stage_model in zip(manifest["stages"], models):
        session = placer.compile(placer.import_onnx(stage_model),
                                 cache_dir=str(tmp_path / "cache"))
        values.update(session.run({i: values[i] for i in stage["inputs"]}))
    np.testing.assert_allclose(values["y"], reference(x), atol=1e-5)


PIPER_BERT = (pathlib.Path(__file__).resolve().parents[1] / "Inputs" /
              "workloads" / "piper" / "bert32a100.json")


def test_three_dimensional_plan_of_piper_input():
    # Piper's BERT-32 (its file's 25e9 B/s) on 64 devices of 8 GiB, N = 1920:
    # the same plan as placer-opt gives (test/Transforms/place-parallel.test).
    module = placer.import_workload(PIPER_BERT)
    placement = module.partition(devices=64, memory=8 << 30,
                                 microbatches=1920, split=False)
    report = placement.report
    assert report["algorithm"] == "parallel"
    assert report["time_per_sample"] == pytest.approx(0.020320224693333333,
                                                      rel=1e-12)
    assert report["devices_used"] == 64
    stages = report["stages"]
    assert len(stages) == 13
    assert sum(s["tensor_degree"] * s["data_degree"] for s in stages) == 64
    assert stages[0]["names"][:3] == ["tensor", "tensor", "Embedding"]


def test_workload_import_errors_name_the_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"maxMemoryPerDevice": 1, "maxDevices": 1, '
                   '"bandwidth": 1, "mbsInBatch": 0, "nodes": [], "edges": []}')
    with pytest.raises(placer.Error, match=r"bad.json: mbsInBatch"):
        placer.import_workload(bad)


def test_tensor_degrees_shard_a_transformer_block_that_fits_no_pipeline(tmp_path):
    # test/Inputs/onnx_fixtures.py's transformer block in 150,000 bytes per
    # device: no pipeline of two devices holds it, tensor parallelism at
    # t = 2 does (test/Transforms/derive-tensor-configs.test), and the report
    # says what the plan would be without it.
    import subprocess
    import sys
    path = tmp_path / "block.onnx"
    subprocess.run([sys.executable, str(ROOT / "test" / "Inputs" / "onnx_fixtures.py"),
                    "transformer-block", str(path)], check=True)
    module = placer.import_onnx(str(path))
    placement = module.partition(devices=2, tensor_degrees=[1, 2],
                                 memory_limit=150000, split=False)
    report = placement.report
    assert report["algorithm"] == "parallel"
    assert [(s["tensor_degree"], s["data_degree"]) for s in report["stages"]] == [(2, 1)]
    assert "no plan fits in 150000" in report["without_tensor_parallelism"]["error"]
    # The unsplit plan simulates stage by stage (docs/Simulator.md).
    simulation = placement.simulate(microbatches=4)
    assert simulation["plan"] == "three-dimensional"
    assert simulation["time_per_sample"] == pytest.approx(
        report["time_per_sample"], rel=1e-9)
    with pytest.raises(placer.Error, match=r"tensor-degrees=0: a degree must be"):
        module.partition(devices=2, tensor_degrees=[0, 2], split=False)

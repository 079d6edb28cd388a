#!/usr/bin/env python3
"""Pipelined training over MPI against one process and the simulator.

    pipeline.py --bin BUILD/bin --work DIR [--layers 4] [--dim 128]
                [--heads 4] [--seq 32] [--vocab 512] [--batch 4]
                [--microbatches 4] [--schedule gpipe[,1f1b,...]] [--steps 6]
                [--ranks 2] [--rounds N]
    pipeline.py --model cnn --bin BUILD/bin --work DIR [--channels 16]
                [--image 32] [--classes 10] [--batch 4] ...

--model cnn trains a small ResNet-style CNN (BatchNormalization with the
batch's statistics) instead of the decoder below.

With --torch, the single process's losses and weights are compared with
PyTorch's (the same decoder, weights, data and optimizer) in float32 and
float64. A GPT-style decoder (token and position embeddings; per layer
LayerNormalization, multi-head causal attention, a GELU feed-forward,
residuals; a final norm and an untied output projection), written with
onnx.helper and NumPy (no PyTorch). Its training step (cross-entropy on the
next-token logits, Adam) over one microbatch is profiled on this machine
(placer-run --profile, kind "rank"), placed over `ranks` devices of a
cluster of this machine's MPI ranks with those times, for `schedule` and
`microbatches` (--partition-devices split=false), and then:

- simulated: the placed step split and run by --placer-simulate for
  `microbatches` under `schedule` (seconds per iteration, and per device
  the memory the analysis counts: weights, gradients, optimizer state and
  the stash);
- run: the same placement with its microbatches made explicit in the
  schedule's order (--placer-accumulate-microbatches), split, and
  `mpirun -n RANKS placer-run --train-steps STEPS` (seconds per step,
  each rank's peak resident memory), against one process running the
  step over the whole batch (placer-run --train-steps --microbatches M).

With --tensor T (T > 1), the forward graph is planned instead by the
three-dimensional planner with tensor-degrees=T (priced for training with
the model's costs, --placer-estimate-costs training=true), the step built
on the placed graph, and its tensor-parallel stages split into per-device
programs with their collectives (docs/Sharding.md); the report then counts
each rank's collectives per step.

Several schedules (--schedule 1f1b,zb-h1) are each placed, simulated and
run (files in WORK/SCHEDULE), and each one's losses and weights compared bit
for bit with the first's; --rounds N then times each schedule's artifact N
more times, the schedules in turn, so that the machine's drift falls on all
alike (the median of the rounds is reported).

Checks that the ranks' losses and weights equal the single process's
within 1e-5 relative. Prints a table; writes WORK/training.json (a list of
rows for several schedules).
"""
import argparse
import filecmp
import importlib.util
import json
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def load_execution_pipeline():
    """benchmarks/execution/pipeline.py: its run() and its cluster() of this
    machine's MPI ranks, shared with the inference pipeline benchmark."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "execution",
                        "pipeline.py")
    spec = importlib.util.spec_from_file_location("execution_pipeline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


execution = load_execution_pipeline()
run = execution.run


def decoder(path, layers, dim, heads, seq, vocab, batch, seed=0):
    """The decoder over one microbatch of `batch` sequences; weights drawn
    as GPT-2 initializes them (N(0, 0.02), norms at 1 and 0)."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def weight(name, *shape, value=None):
        v = (rng.standard_normal(shape) * 0.02 if value is None
             else np.full(shape, value)).astype(np.float32)
        inits.append(numpy_helper.from_array(v, name))
        return name

    def const(name, v):
        inits.append(numpy_helper.from_array(np.asarray(v), name))
        return name

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out] if isinstance(out, str) else out,
                                      name=out if isinstance(out, str) else out[0], **attrs))
        return out

    head = dim // heads
    const("positions", np.arange(seq, dtype=np.int64))
    const("causal", np.tril(np.ones((seq, seq), bool)))
    const("masked", np.float32(-1e4))
    const("root", np.float32(math.sqrt(head)))
    const("sqrt2", np.float32(math.sqrt(2)))
    const("one", np.float32(1))
    const("half", np.float32(0.5))
    const("thirds", np.array([dim] * 3, np.int64))
    const("split_heads", np.array([batch, seq, heads, head], np.int64))
    const("merge_heads", np.array([batch, seq, dim], np.int64))
    const("rows", np.array([batch * seq, vocab], np.int64))
    te = node("Gather", [weight("wte", vocab, dim), "tokens"], "te")
    pe = node("Gather", [weight("wpe", seq, dim), "positions"], "pe")
    h = node("Add", [te, pe], "h0")
    for i in range(layers):
        p = "l%d_" % i
        n1 = node("LayerNormalization", [h, weight(p + "ln1_g", dim, value=1.0),
                                         weight(p + "ln1_b", dim, value=0.0)], p + "n1")
        qkv = node("MatMul", [n1, weight(p + "qkv_w", dim, 3 * dim)], p + "qkv")
        q, k, v = node("Split", [qkv, "thirds"], [p + "q", p + "k", p + "v"], axis=2)

        def heads_of(t, perm):
            r = node("Reshape", [t, "split_heads"], t + "_r")
            return node("Transpose", [r], t + "_t", perm=perm)
        qh = heads_of(q, [0, 2, 1, 3])
        kh = heads_of(k, [0, 2, 3, 1])
        vh = heads_of(v, [0, 2, 1, 3])
        scores = node("MatMul", [qh, kh], p + "scores")
        scaled = node("Div", [scores, "root"], p + "scaled")
        masked = node("Where", ["causal", scaled, "masked"], p + "masked")
        probs = node("Softmax", [masked], p + "probs", axis=-1)
        att = node("MatMul", [probs, vh], p + "att")
        merged = node("Reshape", [node("Transpose", [att], p + "att_t", perm=[0, 2, 1, 3]),
                                  "merge_heads"], p + "merged")
        proj = node("MatMul", [merged, weight(p + "proj_w", dim, dim)], p + "proj")
        h = node("Add", [h, proj], p + "h1")
        n2 = node("LayerNormalization", [h, weight(p + "ln2_g", dim, value=1.0),
                                         weight(p + "ln2_b", dim, value=0.0)], p + "n2")
        f = node("MatMul", [n2, weight(p + "fc_w", dim, 4 * dim)], p + "fc")
        erf = node("Erf", [node("Div", [f, "sqrt2"], p + "fs")], p + "erf")
        gelu = node("Mul", [node("Mul", [f, node("Add", [erf, "one"], p + "fa")], p + "fm"),
                            "half"], p + "gelu")
        ff = node("MatMul", [gelu, weight(p + "out_w", 4 * dim, dim)], p + "ff")
        h = node("Add", [h, ff], p + "h2")
    nf = node("LayerNormalization", [h, weight("lnf_g", dim, value=1.0),
                                     weight("lnf_b", dim, value=0.0)], "nf")
    logits = node("MatMul", [nf, weight("head", dim, vocab)], "logits3")
    node("Reshape", [logits, "rows"], "logits")
    graph = helper.make_graph(
        nodes, "decoder",
        [helper.make_tensor_value_info("tokens", TensorProto.INT64, [batch, seq])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch * seq, vocab])],
        inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return sum(numpy_helper.to_array(i).size for i in inits if i.data_type == TensorProto.FLOAT)


def torch_optimizer(params, args):
    """PyTorch's optimizer of `args` (Placer's are PyTorch's definitions)."""
    import torch
    if args.optimizer == "adam":
        return torch.optim.Adam(params, lr=args.learning_rate)
    return torch.optim.SGD(params, lr=args.learning_rate,
                           momentum=0.9 if args.optimizer == "momentum" else 0)


def cnn(path, channels, classes, image, batch, seed=0):
    """A small ResNet-style CNN over one microbatch of `batch` RGB images:
    a 3x3 stride-2 stem, one residual block of two 3x3 convolutions, each
    convolution followed by BatchNormalization (trained with the batch's
    statistics: batch-norm=batch), ReLUs, global average pooling and a
    linear classifier. Weights drawn as PyTorch initializes them (Kaiming
    uniform), norms at 1 and 0, running statistics at 0 and 1."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def weight(name, *shape, value=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        bound = 1 / math.sqrt(fan_in)
        v = (rng.uniform(-bound, bound, shape) if value is None
             else np.full(shape, value)).astype(np.float32)
        inits.append(numpy_helper.from_array(v, name))
        return name

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def conv_bn(x, name, cin, stride):
        c = node("Conv", [x, weight(name + "_w", channels, cin, 3, 3)], name,
                 pads=[1, 1, 1, 1], strides=[stride, stride])
        return node("BatchNormalization",
                    [c, weight(name + "_g", channels, value=1.0),
                     weight(name + "_b", channels, value=0.0),
                     weight(name + "_mean", channels, value=0.0),
                     weight(name + "_var", channels, value=1.0)], name + "_bn", momentum=0.9)
    stem = node("Relu", [conv_bn("x", "stem", 3, 2)], "stem_relu")
    a = node("Relu", [conv_bn(stem, "block1", channels, 1)], "block1_relu")
    b = conv_bn(a, "block2", channels, 1)
    out = node("Relu", [node("Add", [b, stem], "residual")], "block_relu")
    pooled = node("Flatten", [node("GlobalAveragePool", [out], "pool")], "features")
    node("Gemm", [pooled, weight("fc_w", classes, channels), weight("fc_b", classes, value=0.0)],
         "logits", transB=1)
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, image, image])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [batch, classes])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return sum(numpy_helper.to_array(i).size for i in inits
               if not i.name.endswith(("_mean", "_var")))


def torch_cnn_losses(work, args, steps, dtype):
    """The CNN in PyTorch, train() semantics: each microbatch normalised by
    its own statistics, gradients of the microbatches' mean loss; the
    running statistics blended once per step with the microbatches' mean
    statistics (Placer's definition, docs/Training.md; PyTorch's modules
    would blend once per microbatch). Losses, then weights and running
    statistics by name."""
    import torch
    import torch.nn.functional as F
    model = onnx.load(work("model.onnx"))
    values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    state = {n: torch.tensor(v.copy(), dtype=dtype) for n, v in values.items()}
    params = {n: v.requires_grad_() for n, v in state.items()
              if not n.endswith(("_mean", "_var"))}
    images = torch.tensor(np.load(work("x.npy")), dtype=dtype)
    labels = torch.tensor(np.load(work("labels.npy")))
    m = args.microbatches
    p = params

    def forward(x, stats):
        def conv_bn(v, name, stride):
            c = F.conv2d(v, p[name + "_w"], stride=stride, padding=1)
            stats.append((name, c.mean((0, 2, 3)).detach(), c.var((0, 2, 3)).detach()))
            return F.batch_norm(c, None, None, p[name + "_g"], p[name + "_b"], training=True)
        stem = F.relu(conv_bn(x, "stem", 2))
        a = F.relu(conv_bn(stem, "block1", 1))
        out = F.relu(conv_bn(a, "block2", 1) + stem)
        return out.mean((2, 3)) @ p["fc_w"].T + p["fc_b"]

    optimizer = torch_optimizer(params.values(), args)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        total, stats = 0.0, []
        for x, y in zip(images.chunk(m), labels.chunk(m)):
            loss = F.cross_entropy(forward(x, stats), y) / m
            loss.backward()
            total += loss.item()
        losses.append(total)
        optimizer.step()
        for name in dict.fromkeys(n for n, _, _ in stats):
            means = torch.stack([mean for n, mean, _ in stats if n == name]).mean(0)
            variances = torch.stack([var for n, _, var in stats if n == name]).mean(0)
            state[name + "_mean"] = 0.9 * state[name + "_mean"] + 0.1 * means
            state[name + "_var"] = 0.9 * state[name + "_var"] + 0.1 * variances
    return np.array(losses), {n: v.detach().numpy() for n, v in state.items()}


def torch_losses(work, args, steps, dtype):
    """The same decoder, initial weights, data and optimizer in PyTorch
    (`dtype`, the whole batch per step): its losses and final weights by
    name."""
    if args.model == "cnn":
        return torch_cnn_losses(work, args, steps, dtype)
    import torch
    import torch.nn.functional as F
    model = onnx.load(work("model.onnx"))
    values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    params = {n: torch.tensor(v.copy(), dtype=dtype, requires_grad=True)
              for n, v in values.items() if v.dtype == np.float32 and v.ndim >= 1}
    tokens = torch.tensor(np.load(work("tokens.npy")))
    labels = torch.tensor(np.load(work("labels.npy")))
    b, t, d, h = tokens.shape[0], args.seq, args.dim, args.heads
    causal = torch.tensor(values["causal"])
    p = params

    def loss_of():
        x = p["wte"][tokens] + p["wpe"][torch.arange(t)]
        for i in range(args.layers):
            q = "l%d_" % i
            n1 = F.layer_norm(x, (d,), p[q + "ln1_g"], p[q + "ln1_b"], eps=1e-5)
            qs, ks, vs = (n1 @ p[q + "qkv_w"]).split(d, dim=2)
            split = lambda v: v.reshape(b, t, h, d // h)  # noqa: E731
            scores = split(qs).permute(0, 2, 1, 3) @ split(ks).permute(0, 2, 3, 1)
            scores = torch.where(causal, scores / math.sqrt(d // h),
                                 torch.tensor(-1e4, dtype=dtype))
            att = torch.softmax(scores, -1) @ split(vs).permute(0, 2, 1, 3)
            x = x + att.permute(0, 2, 1, 3).reshape(b, t, d) @ p[q + "proj_w"]
            n2 = F.layer_norm(x, (d,), p[q + "ln2_g"], p[q + "ln2_b"], eps=1e-5)
            f = n2 @ p[q + "fc_w"]
            x = x + (f * (torch.erf(f / math.sqrt(2)) + 1) * 0.5) @ p[q + "out_w"]
        nf = F.layer_norm(x, (d,), p["lnf_g"], p["lnf_b"], eps=1e-5)
        return F.cross_entropy((nf @ p["head"]).reshape(b * t, -1), labels)

    optimizer = torch_optimizer(params.values(), args)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_of()
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return np.array(losses), {n: v.detach().numpy() for n, v in params.items()}


def compare_torch(work, args, loss_one):
    """Placer's single-process run against PyTorch in float32 and float64.
    Adam divides by the root of each gradient's square, so an element whose
    gradient is rounding noise moves by a whole learning rate either way:
    two float32 runs of the same math part by about the learning rate
    there. Placer is then judged by its distance from float64 beside
    float32 PyTorch's."""
    import torch
    result = {}
    runs = {"float32": torch_losses(work, args, args.steps, torch.float32),
            "float64": torch_losses(work, args, args.steps, torch.float64)}
    ours = {n: np.load(os.path.join(work("one-weights"), n + ".npy"))
            for n in runs["float32"][1]}
    for name, (losses, weights) in runs.items():
        result["loss_vs_pytorch_" + name] = relative_error(loss_one, losses)
        result["weights_vs_pytorch_" + name] = max(
            relative_error(ours[n], w) for n, w in weights.items())
    result["pytorch_float32_weights_vs_float64"] = max(
        relative_error(runs["float32"][1][n], w) for n, w in runs["float64"][1].items())
    return result


def relative_error(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--model", default="decoder", choices=["decoder", "cnn"])
    parser.add_argument("--channels", type=int, default=16, help="cnn: channels")
    parser.add_argument("--image", type=int, default=32, help="cnn: image side")
    parser.add_argument("--classes", type=int, default=10, help="cnn: classes")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--vocab", type=int, default=512)
    parser.add_argument("--batch", type=int, default=4, help="sequences per microbatch")
    parser.add_argument("--microbatches", type=int, default=4)
    parser.add_argument("--schedule", default="gpipe",
                        help="a schedule, or several separated by commas: each is placed, "
                             "simulated and run, and its losses and weights compared bit for "
                             "bit with the first's")
    parser.add_argument("--rounds", type=int, default=0,
                        help="time each schedule's artifact this many more times, the "
                             "schedules in turn (median of the rounds)")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--bandwidth", type=float, default=5e9)
    parser.add_argument("--latency", type=float, default=2e-6)
    parser.add_argument("--optimizer", default="adam", choices=["sgd", "momentum", "adam"])
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--torch", action="store_true",
                        help="also train the same decoder in PyTorch and compare")
    parser.add_argument("--tensor", type=int, default=1,
                        help="plan with tensor-degrees=TENSOR (three-dimensional planner)")
    parser.add_argument("--runtime-bin", default="",
                        help="a runtime-only placer-run (-DPLACER_RUNTIME_ONLY=ON) for the ranks")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    tool = lambda name: os.path.join(args.bin, name)  # noqa: E731
    work = lambda name: os.path.join(args.work, name)  # noqa: E731
    cache = work("cache")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")

    rng = np.random.default_rng(1)
    m, b, t = args.microbatches, args.batch, args.seq
    options = "loss=cross-entropy optimizer=%s learning-rate=%g" % (args.optimizer,
                                                                   args.learning_rate)
    if args.model == "decoder":
        parameters = decoder(work("model.onnx"), args.layers, args.dim, args.heads, args.seq,
                             args.vocab, args.batch)
        source = "tokens"
        tokens = rng.integers(0, args.vocab, (m * b, t + 1)).astype(np.int64)
        data, labels = tokens[:, :-1], tokens[:, 1:].reshape(-1)
        per_microbatch = b * t
    else:
        parameters = cnn(work("model.onnx"), args.channels, args.classes, args.image, b)
        options += " batch-norm=batch"
        source = "x"
        data = rng.standard_normal((m * b, 3, args.image, args.image)).astype(np.float32)
        labels = rng.integers(0, args.classes, m * b).astype(np.int64)
        per_microbatch = b
    np.save(work("x.npy" if source == "x" else "tokens.npy"), data)
    np.save(work("labels.npy"), labels)
    np.save(work("input1.npy"), data[:b])
    np.save(work("labels1.npy"), labels[:per_microbatch])
    run([tool("placer-translate"), "--import-onnx", work("model.onnx"), "-o", work("model.mlir")])
    run([tool("placer-opt"), work("model.mlir"), "--placer-build-training=" + options,
         "-o", work("step.mlir")])
    inputs = ["--input", "%s=%s" % (source, work(source + ".npy")),
              "--input", "labels=" + work("labels.npy")]

    # Profile one microbatch's step; place it for the pipeline.
    run([tool("placer-run"), work("step.mlir"), "--profile", work("profile.json"),
         "--profile-kind", "rank", "--repeat", "3", "--cache-dir", cache,
         "--input", "%s=%s" % (source, work("input1.npy")),
         "--input", "labels=" + work("labels1.npy")])
    execution.cluster(work("cluster.json"), args.ranks,
                      {"bandwidth": args.bandwidth, "latency": args.latency})
    # One process over the whole batch.
    steps = ["--train-steps", str(args.steps), "--microbatches", str(m)]
    run([tool("placer-run"), work("step.mlir"), *inputs, *steps, "--cache-dir", cache,
         "--output-dir", work("one"),
         "--save-weights", work("one-weights"), "--report", work("one.json")], env=env)
    with open(work("one.json")) as f:
        one = json.load(f)
    loss_one = np.load(work("one/loss.npy"))
    names = sorted(os.listdir(work("one-weights")))
    versus = compare_torch(work, args, loss_one) if args.torch else {}

    schedules = args.schedule.split(",")
    bench = argparse.Namespace(args=args, tool=tool, work=work, env=env, cache=cache,
                               inputs=inputs, steps=steps, names=names, options=options)
    rows = [run_schedule(bench, schedule) for schedule in schedules]
    # Every schedule against the first: the same losses and weights, bit
    # for bit (the gradients are summed in microbatch order whatever the
    # order of the work).
    first = schedules[0]
    for schedule, row in zip(schedules[1:], rows[1:]):
        same = [filecmp.cmp(work(os.path.join(schedule, "ranks", "loss.npy")),
                            work(os.path.join(first, "ranks", "loss.npy")), shallow=False)]
        same += [filecmp.cmp(work(os.path.join(schedule, "ranks-weights", name)),
                             work(os.path.join(first, "ranks-weights", name)), shallow=False)
                 for name in names]
        row["bitwise_equal_to_" + first] = all(same)
    # Side by side: each schedule's artifact once per round, in turn, so
    # that the machine's drift falls on all alike.
    if args.rounds > 0:
        timed = {schedule: [] for schedule in schedules}
        for _ in range(args.rounds):
            for schedule in schedules:
                timed[schedule].append(
                    run_ranks(bench, schedule, "rounds")["seconds_per_step"]["median"])
        for schedule, row in zip(schedules, rows):
            row["rounds_seconds_per_step"] = timed[schedule]
            row["pipeline_seconds_per_step"] = float(np.median(timed[schedule]))
            row["measured_over_simulated"] = (row["pipeline_seconds_per_step"] /
                                              row["simulated_seconds_per_step"])

    shape = ({"layers": args.layers, "dim": args.dim, "seq": args.seq, "vocab": args.vocab}
             if args.model == "decoder" else
             {"channels": args.channels, "image": args.image, "classes": args.classes})
    print("%s: %s, %d parameters; %d microbatches of %d, %d ranks"
          % (args.model, ", ".join("%s %s" % kv for kv in shape.items()), parameters, m, b,
             args.ranks))
    print("losses %.4f -> %.4f over %d steps (one process)"
          % (loss_one[0], loss_one[-1], args.steps))
    if versus:
        print("one process vs PyTorch (same weights, data, %s): losses %.1e (float32) %.1e "
              "(float64); weights %.1e (float32) %.1e (float64); PyTorch float32 vs float64 "
              "weights %.1e" % (args.optimizer, versus["loss_vs_pytorch_float32"],
                                versus["loss_vs_pytorch_float64"],
                                versus["weights_vs_pytorch_float32"],
                                versus["weights_vs_pytorch_float64"],
                                versus["pytorch_float32_weights_vs_float64"]))
    worst = 0.0
    for schedule, row in zip(schedules, rows):
        row.update({"model": args.model, "parameters": parameters, **shape,
                    "microbatch": b, "microbatches": m, "ranks": args.ranks,
                    "steps": args.steps, "tensor": args.tensor,
                    "loss_first": float(loss_one[0]), "loss_last": float(loss_one[-1]),
                    "optimizer": args.optimizer, "learning_rate": args.learning_rate,
                    "pytorch": versus,
                    "one_process_seconds_per_step": one["seconds_per_step"]["median"]})
        worst = max(worst, row["max_relative_error_vs_one_process"])
        measured, predicted = row["pipeline_seconds_per_step"], row["simulated_seconds_per_step"]
        print("%s: ranks vs one process max relative error %.1e%s"
              % (schedule, row["max_relative_error_vs_one_process"],
                 "" if schedule == first else
                 "; bitwise equal to %s: %s" % (first, row["bitwise_equal_to_" + first])))
        if args.tensor > 1:
            print("  tensor-parallel degree %d: the split program has %d all-reduces and %d "
                  "all-gathers (all ranks, all microbatches)"
                  % (args.tensor, row["collectives_in_split_program"]["all_reduce"],
                     row["collectives_in_split_program"]["all_gather"]))
        print("  seconds per step: one process %.4f, pipeline %.4f%s, simulated %.4f, "
              "measured / simulated %.2f"
              % (one["seconds_per_step"]["median"], measured,
                 " (median of %d rounds)" % args.rounds if args.rounds > 0 else "",
                 predicted, measured / predicted))
        devices = row["simulated_devices"]
        for r in row["ranks_report"]:
            dev = devices[r["rank"]] if r["rank"] < len(devices) else {}
            line = ("  rank %d: compute %.4f s, recv wait %.4f s, peak resident %.1f MB"
                    % (r["rank"], r["compute_seconds"], r["recv_wait_seconds"],
                       r["peak_resident_bytes"] / 1e6))
            # A three-dimensional plan's simulation counts no memory per device.
            if "peak_bytes" in dev:
                line += ("; simulator %.1f MB (weights, gradients, optimizer state %.1f MB; "
                         "activations %.1f MB, of which stash %.1f MB per microbatch x %s in "
                         "flight)" % (dev["peak_bytes"] / 1e6, dev.get("param_bytes", 0) / 1e6,
                                      dev.get("peak_activation_bytes", 0) / 1e6,
                                      dev.get("stash_bytes", 0) / 1e6, dev.get("in_flight", "?")))
            print(line)
    if len(schedules) > 1:
        base = rows[0]["pipeline_seconds_per_step"]
        print("step time against %s: %s" % (first, ", ".join(
            "%s %.3fx" % (s, r["pipeline_seconds_per_step"] / base)
            for s, r in zip(schedules[1:], rows[1:]))))
    with open(work("training.json"), "w") as f:
        json.dump(rows[0] if len(rows) == 1 else rows, f, indent=2)
    if worst > 1e-5:
        sys.exit("the ranks' losses or weights differ from one process's")
    if any(not row.get("bitwise_equal_to_" + first, True) for row in rows):
        sys.exit("a schedule's losses or weights differ from %s's" % first)
    if versus and (versus["loss_vs_pytorch_float32"] > 1e-4 or
                   versus["weights_vs_pytorch_float64"] >
                   max(1e-4, 2 * versus["pytorch_float32_weights_vs_float64"])):
        sys.exit("the losses or weights differ from PyTorch's")


def run_ranks(bench, schedule, output):
    """One run of `schedule`'s artifact over the ranks; its report."""
    args = bench.args
    at = lambda name: bench.work(os.path.join(schedule, name))  # noqa: E731
    runner = args.runtime_bin or bench.tool("placer-run")
    run(["mpirun", "-n", str(args.ranks), "--bind-to", "core", runner,
         at("artifact"), *bench.inputs, *bench.steps, "--output-dir", at(output),
         "--save-weights", at(output + "-weights"), "--report", at(output + ".json")],
        env=bench.env)
    with open(at(output + ".json")) as f:
        return json.load(f)


def run_schedule(bench, schedule):
    """Places, simulates, splits, compiles and runs the step under
    `schedule` (files in WORK/SCHEDULE); its row of the report."""
    args, tool, work, options = bench.args, bench.tool, bench.work, bench.options
    at = lambda name: work(os.path.join(schedule, name))  # noqa: E731
    os.makedirs(at(""), exist_ok=True)
    m = args.microbatches
    if args.tensor > 1:
        # The forward graph priced for training, planned in three
        # dimensions; the step built where its forward nodes run.
        run([tool("placer-opt"), work("model.mlir"),
             "--placer-estimate-costs=training=true cluster=" + work("cluster.json"),
             "--placer-place-devices=devices=%d tensor-degrees=%d schedule=%s microbatches=%d"
             % (args.ranks, args.tensor, schedule, m),
             "-o", at("planned.mlir")])
        run([tool("placer-opt"), at("planned.mlir"),
             "--placer-simulate=report=" + at("simulated.json"), "-o", os.devnull])
        run([tool("placer-opt"), at("planned.mlir"), "--placer-build-training=" + options,
             "-o", at("placed.mlir")])
    else:
        placement = ("devices=%d cluster=%s profile=%s split=false schedule=%s microbatches=%d"
                     % (args.ranks, work("cluster.json"), work("profile.json"), schedule, m))
        run([tool("placer-opt"), work("step.mlir"), "--partition-devices=" + placement,
             "-o", at("placed.mlir")])
        run([tool("placer-opt"), at("placed.mlir"), "--placer-split-devices",
             "--placer-simulate=report=" + at("simulated.json"), "-o", os.devnull])
    with open(at("simulated.json")) as f:
        simulated = json.load(f)
    run([tool("placer-opt"), at("placed.mlir"), "--placer-accumulate-microbatches",
         "--placer-split-devices", "-o", at("train_split.mlir")])
    with open(at("train_split.mlir")) as f:
        text = f.read()
    collectives = {kind: text.count("dist." + kind) for kind in ("all_reduce", "all_gather")}
    # The ranks run the compiled artifact with the runtime alone, so that
    # their resident memory is the training's, not the compiler's.
    run([tool("placer-run"), at("train_split.mlir"), "--compile-only", at("artifact"),
         "--cache-dir", bench.cache])
    piped = run_ranks(bench, schedule, "ranks")
    worst = relative_error(np.load(at("ranks/loss.npy")), np.load(work("one/loss.npy")))
    for name in bench.names:
        worst = max(worst, relative_error(np.load(os.path.join(at("ranks-weights"), name)),
                                          np.load(os.path.join(work("one-weights"), name))))
    measured = piped["seconds_per_step"]["median"]
    predicted = simulated["total"]
    return {
        "schedule": schedule,
        "collectives_in_split_program": collectives,
        "max_relative_error_vs_one_process": worst,
        "pipeline_seconds_per_step": measured,
        "simulated_seconds_per_step": predicted,
        "measured_over_simulated": measured / predicted,
        "ranks_report": piped["ranks"],
        "simulated_devices": simulated.get("devices", []),
    }


if __name__ == "__main__":
    main()

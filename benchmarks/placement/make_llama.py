#!/usr/bin/env python3
"""Writes a LLaMA-style decoder as ONNX, a decode step or a prefill, and
checks what a run of it returned against float32 arithmetic.

    python3 make_llama.py OUT.onnx [--layers 80] [--d 8192] [--heads 64]
                          [--kv-heads 8] [--ff 28672] [--vocab 32000]
                          [--dtype f16|bf16|f32] [--prefill SEQ] [--weights DIR]
    python3 make_llama.py OUT.onnx ... --weights DIR --inputs DIR BATCH PAST
    python3 make_llama.py OUT.onnx ... --weights DIR --check DIR OUT_DIR

A decode step (the default) takes one token per sequence against each
layer's KV cache, as Optimum's exports write it: ids[batch, 1] and
past_key_values.N.key / .value[batch, kv_heads, past, d / heads] in;
logits and present.N.key / .value (the caches extended along axis 2) out.
--prefill SEQ writes the prompt's pass instead: ids[batch, SEQ] with a
causal mask, no past, the layers' keys and values as present.N.*. RMSNorm,
grouped-query attention (heads / kv_heads queries per key), SwiGLU MLP,
final norm and LM head. The defaults are LLaMA-2-70B's shapes (69 B
parameters, 138 GB in float16).

Without --weights the weights are external data in a file that is not
written: the graph is for `placer-translate --import-onnx --shapes-only`
with `--dim batch=B --dim past=P`. With --weights DIR they are seeded random
(standard normal / sqrt(fan-in)) in DIR/weights.bin, and --inputs writes
ids and pasts for a run, --check compares a run's outputs (OUT_DIR/*.npy)
with the model computed in float32 from the same half-precision weights
and inputs, printing each output's largest error relative to its largest
magnitude (with --tolerance T, "within T" below it). bfloat16 arrays are
their uint16 bits (placer-run's convention). OUT.onnx goes beside its
weights: write it into DIR.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

from external_weights import ExternalWeights


def to_bfloat16_bits(a):
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def stored(a, dtype):
    """`a` as the model stores it: float16, bfloat16 bits, or float32."""
    if dtype == "f32":
        return a.astype(np.float32)
    return a.astype(np.float16) if dtype == "f16" else to_bfloat16_bits(a)


def to_float(a):
    if a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


class Llama:
    def __init__(self, args):
        self.args = args
        a = args
        self.hd, self.group = a.d // a.heads, a.heads // a.kv_heads
        self.elem = {"f16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16,
                     "f32": TensorProto.FLOAT}[a.dtype]
        self.item_bytes = 4 if a.dtype == "f32" else 2
        self.rng = np.random.default_rng(0)
        self.weights = {}  # name -> float32 values rounded to the dtype
        self.external = ExternalWeights()

    def weight(self, name, dims):
        """An initializer, external data at the next offset of weights.bin."""
        t = self.external.tensor(name, dims, self.elem, self.item_bytes)
        if self.args.weights:
            fan_in = dims[0] if len(dims) == 2 and not name.startswith("embed") else 1
            values = self.rng.standard_normal(dims).astype(np.float32) / np.sqrt(fan_in)
            if name.endswith("norm.w"):
                values = 1 + 0.1 * values
            half = stored(values, self.args.dtype)
            self.weights[name] = to_float(half)
            self.blob.append(half.tobytes())
        self.inits.append(t)
        return name

    def build(self):
        a = self.args
        d, kvh, hd, group = a.d, a.kv_heads, self.hd, self.group
        seq = a.prefill or 1
        self.nodes, self.inits, self.blob = [], [], []
        inputs, outputs = [], []
        nodes, inits = self.nodes, self.inits

        def const(name, values, dims, dtype=TensorProto.INT64):
            inits.append(helper.make_tensor(name, dtype, dims, values))
            return name

        def node(op, ins, name, **attrs):
            nodes.append(helper.make_node(op, ins, [name], name=name, **attrs))
            return name

        def scalar(name, value):
            raw = stored(np.array([value], np.float32), a.dtype).tobytes()
            inits.append(helper.make_tensor(name, self.elem, [], raw, raw=True))
            return name

        def rms_norm(x, name):
            sq = node("Mul", [x, x], name + ".sq")
            mean = node("ReduceMean", [sq], name + ".mean", axes=[-1], keepdims=1)
            rms = node("Sqrt", [node("Add", [mean, "eps"], name + ".eps")], name + ".rms")
            return node("Mul", [node("Div", [x, rms], name + ".div"),
                                self.weight(name + ".w", [d])], name)

        scalar("eps", 1e-5)
        scalar("scale", 1.0 / hd ** 0.5)
        const("shape_q", [0, seq, kvh, group, hd], [5])
        const("shape_kv", [0, seq, kvh, hd], [4])
        const("shape_model", [0, seq, d], [3])
        const("axis_group", [2], [1])
        if a.prefill:
            mask = stored(np.triu(np.full((seq, seq), -1e4, np.float32), 1), a.dtype)
            inits.append(helper.make_tensor("causal_mask", self.elem, [seq, seq],
                                            mask.tobytes(), raw=True))
        inputs.append(helper.make_tensor_value_info("ids", TensorProto.INT64,
                                                    ["batch", seq]))
        x = node("Gather", [self.weight("embed.w", [a.vocab, d]), "ids"], "embed", axis=0)
        for i in range(a.layers):
            p = "layers.%d." % i
            h = rms_norm(x, p + "attn_norm")
            q = node("MatMul", [h, self.weight(p + "wq", [d, d])], p + "q")
            q = node("Reshape", [q, "shape_q"], p + "q_groups")
            q = node("Transpose", [q], p + "q_t", perm=[0, 2, 3, 1, 4])  # [b,kvh,g,s,hd]
            present = {}
            for kv in ("key", "value"):
                new = node("MatMul", [h, self.weight(p + "w" + kv[0], [d, kvh * hd])], p + kv)
                new = node("Reshape", [new, "shape_kv"], p + kv + "_heads")
                new = node("Transpose", [new], p + kv + "_t", perm=[0, 2, 1, 3])
                name = "present.%d.%s" % (i, kv)
                if a.prefill:
                    present[kv] = node("Identity", [new], name)
                    length = seq
                else:
                    past = "past_key_values.%d.%s" % (i, kv)
                    inputs.append(helper.make_tensor_value_info(
                        past, self.elem, ["batch", kvh, "past", hd]))
                    present[kv] = node("Concat", [past, new], name, axis=2)
                    length = "past_plus_1"
                outputs.append(helper.make_tensor_value_info(
                    name, self.elem, ["batch", kvh, length, hd]))
            k = node("Unsqueeze", [present["key"], "axis_group"], p + "k_group")
            kt = node("Transpose", [k], p + "k_tt", perm=[0, 1, 2, 4, 3])
            v = node("Unsqueeze", [present["value"], "axis_group"], p + "v_group")
            scores = node("Mul", [node("MatMul", [q, kt], p + "scores"), "scale"],
                          p + "scaled")
            if a.prefill:
                scores = node("Add", [scores, "causal_mask"], p + "masked")
            probs = node("Softmax", [scores], p + "probs", axis=-1)
            ctx = node("MatMul", [probs, v], p + "ctx")  # [b,kvh,g,s,hd]
            ctx = node("Transpose", [ctx], p + "ctx_t", perm=[0, 3, 1, 2, 4])
            ctx = node("Reshape", [ctx, "shape_model"], p + "ctx_merged")
            o = node("MatMul", [ctx, self.weight(p + "wo", [d, d])], p + "o")
            x = node("Add", [x, o], p + "residual1")
            m = rms_norm(x, p + "mlp_norm")
            gate = node("MatMul", [m, self.weight(p + "w_gate", [d, a.ff])], p + "gate")
            silu = node("Mul", [gate, node("Sigmoid", [gate], p + "sigmoid")], p + "silu")
            up = node("MatMul", [m, self.weight(p + "w_up", [d, a.ff])], p + "up")
            m = node("MatMul", [node("Mul", [silu, up], p + "swiglu"),
                                self.weight(p + "w_down", [a.ff, d])], p + "down")
            x = node("Add", [x, m], p + "residual2")
        x = rms_norm(x, "norm")
        logits = node("MatMul", [x, self.weight("lm_head", [d, a.vocab])], "logits")
        outputs.insert(0, helper.make_tensor_value_info(logits, self.elem,
                                                        ["batch", seq, a.vocab]))
        graph = helper.make_graph(nodes, "llama", inputs, outputs, inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        return model

    def reference(self, ids, pasts):
        """The model in float32 from the stored weights: its outputs."""
        a, w = self.args, self.weights
        kvh, hd, group = a.kv_heads, self.hd, self.group
        eps = float(to_float(stored(np.array([1e-5], np.float32), a.dtype))[0])
        scale = float(to_float(stored(np.array([1.0 / hd ** 0.5], np.float32),
                                      a.dtype))[0])

        def rms_norm(x, name):
            return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w[name + ".w"]

        x = w["embed.w"][ids]
        b, s, d = x.shape
        out = {}
        for i in range(a.layers):
            p = "layers.%d." % i
            h = rms_norm(x, p + "attn_norm")
            q = (h @ w[p + "wq"]).reshape(b, s, kvh, group, hd).transpose(0, 2, 3, 1, 4)
            kv = {}
            for name in ("key", "value"):
                new = (h @ w[p + "w" + name[0]]).reshape(b, s, kvh, hd).transpose(0, 2, 1, 3)
                if not a.prefill:
                    new = np.concatenate([pasts["past_key_values.%d.%s" % (i, name)], new],
                                         axis=2)
                kv[name] = out["present.%d.%s" % (i, name)] = new
            scores = q @ kv["key"][:, :, None].transpose(0, 1, 2, 4, 3) * scale
            if a.prefill:
                scores = scores + to_float(stored(
                    np.triu(np.full((s, s), -1e4, np.float32), 1), a.dtype))
            probs = np.exp(scores - scores.max(-1, keepdims=True))
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ kv["value"][:, :, None]).transpose(0, 3, 1, 2, 4).reshape(b, s, d)
            x = x + ctx @ w[p + "wo"]
            m = rms_norm(x, p + "mlp_norm")
            gate = m @ w[p + "w_gate"]
            x = x + (gate / (1 + np.exp(-gate)) * (m @ w[p + "w_up"])) @ w[p + "w_down"]
        out["logits"] = rms_norm(x, "norm") @ w["lm_head"]
        return out


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=80)
    parser.add_argument("--d", type=int, default=8192)
    parser.add_argument("--heads", type=int, default=64)
    parser.add_argument("--kv-heads", type=int, default=8)
    parser.add_argument("--ff", type=int, default=28672)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--dtype", choices=("f16", "bf16", "f32"), default="f16")
    parser.add_argument("--prefill", type=int, default=0, metavar="SEQ")
    parser.add_argument("--weights", metavar="DIR")
    parser.add_argument("--inputs", nargs=3, metavar=("DIR", "BATCH", "PAST"))
    parser.add_argument("--check", nargs=2, metavar=("DIR", "OUT_DIR"))
    parser.add_argument("--tolerance", type=float,
                        help="--check: print 'within TOLERANCE' for errors below it")
    args = parser.parse_args()
    llama = Llama(args)
    model = llama.build()
    if args.inputs:
        folder, batch, past = args.inputs[0], int(args.inputs[1]), int(args.inputs[2])
        rng = np.random.default_rng(1)
        np.save(os.path.join(folder, "ids.npy"),
                rng.integers(0, args.vocab, (batch, args.prefill or 1)).astype(np.int64))
        for i in range(0 if args.prefill else args.layers):
            for kv in ("key", "value"):
                values = rng.standard_normal((batch, args.kv_heads, past, llama.hd))
                np.save(os.path.join(folder, "past_key_values.%d.%s.npy" % (i, kv)),
                        stored(values.astype(np.float32), args.dtype))
        return
    if args.check:
        folder, out = args.check
        ids = np.load(os.path.join(folder, "ids.npy"))
        pasts = {} if args.prefill else {
            "past_key_values.%d.%s" % (i, kv): to_float(np.load(os.path.join(
                folder, "past_key_values.%d.%s.npy" % (i, kv))))
            for i in range(args.layers) for kv in ("key", "value")}
        for name, want in sorted(llama.reference(ids, pasts).items()):
            got = to_float(np.load(os.path.join(out, name + ".npy")))
            error = np.abs(got - want).max() / np.abs(want).max()
            print("%s: shape %s, max relative error %s" % (
                name, list(got.shape),
                "within %g" % args.tolerance if args.tolerance and error < args.tolerance
                else "%.1e" % error))
        return
    onnx.save(model, args.out)
    if args.weights:
        with open(os.path.join(args.weights, "weights.bin"), "wb") as f:
            f.write(b"".join(llama.blob))
    print("%d layers, %.2f B parameters, %.1f GB in %s" % (
        args.layers, llama.external.offset / llama.item_bytes / 1e9,
        llama.external.offset / 1e9,
        {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}[args.dtype]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes a LLaMA-style decode step as a shapes-only float16 ONNX graph.

    python3 make_llama.py OUT.onnx [--layers 80] [--d 8192] [--heads 64]
                          [--kv-heads 8] [--ff 28672] [--vocab 32000]

One token per sequence against each layer's KV cache, as Optimum's
exports write a decode step: ids[batch, 1] and past_key_values.N.key /
.value[batch, kv_heads, past, d / heads] in; logits and present.N.key /
.value (the caches extended along axis 2) out. RMSNorm, grouped-query
attention (heads / kv_heads queries per key), SwiGLU MLP, final norm and LM
head. The defaults are LLaMA-2-70B's shapes (69 B parameters, 138 GB in
float16). Weights are external data in a file that is not written: the
graph is for `placer-translate --import-onnx --shapes-only` with
`--dim batch=B --dim past=P`.
"""
import argparse

import onnx
from onnx import TensorProto, helper

F16 = TensorProto.FLOAT16


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
    args = parser.parse_args()
    d, h, kvh = args.d, args.heads, args.kv_heads
    hd, group = d // h, h // kvh
    nodes, inits, inputs, outputs = [], [], [], []
    offset = [0]

    def weight(name, dims):
        # External data in a file that is deliberately absent.
        t = TensorProto(name=name, data_type=F16, dims=dims)
        t.data_location = TensorProto.EXTERNAL
        size = 2
        for x in dims:
            size *= x
        for key, value in (("location", "weights.bin"), ("offset", str(offset[0])),
                           ("length", str(size))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        offset[0] += size
        inits.append(t)
        return name

    def const(name, values, dims, dtype=TensorProto.INT64):
        inits.append(helper.make_tensor(name, dtype, dims, values))
        return name

    def node(op, ins, name, **attrs):
        nodes.append(helper.make_node(op, ins, [name], name=name, **attrs))
        return name

    def rms_norm(x, name):
        sq = node("Mul", [x, x], name + ".sq")
        mean = node("ReduceMean", [sq], name + ".mean", axes=[-1], keepdims=1)
        rms = node("Sqrt", [node("Add", [mean, "eps"], name + ".eps")], name + ".rms")
        return node("Mul", [node("Div", [x, rms], name + ".div"),
                            weight(name + ".w", [d])], name)

    const("eps", [1e-5], [], F16)
    const("scale", [1.0 / hd ** 0.5], [], F16)
    const("shape_q", [0, kvh, group, hd], [4])
    const("shape_kv", [0, 1, kvh, hd], [4])
    const("shape_model", [0, 1, d], [3])

    inputs.append(helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", 1]))
    x = node("Gather", [weight("embed.w", [args.vocab, d]), "ids"], "embed", axis=0)
    for i in range(args.layers):
        p = "layers.%d." % i
        a = rms_norm(x, p + "attn_norm")
        q = node("MatMul", [a, weight(p + "wq", [d, d])], p + "q")
        q = node("Reshape", [q, "shape_q"], p + "q_groups")  # [b, kvh, group, hd]
        present = {}
        for kv in ("key", "value"):
            past = "past_key_values.%d.%s" % (i, kv)
            inputs.append(helper.make_tensor_value_info(past, F16, ["batch", kvh, "past", hd]))
            new = node("MatMul", [a, weight(p + "w" + kv[0], [d, kvh * hd])], p + kv)
            new = node("Reshape", [new, "shape_kv"], p + kv + "_heads")
            new = node("Transpose", [new], p + kv + "_t", perm=[0, 2, 1, 3])
            present[kv] = node("Concat", [past, new], "present.%d.%s" % (i, kv), axis=2)
            outputs.append(helper.make_tensor_value_info(
                present[kv], F16, ["batch", kvh, "past_plus_1", hd]))
        kt = node("Transpose", [present["key"]], p + "key_tt", perm=[0, 1, 3, 2])
        scores = node("Mul", [node("MatMul", [q, kt], p + "scores"), "scale"], p + "scaled")
        probs = node("Softmax", [scores], p + "probs", axis=-1)
        ctx = node("MatMul", [probs, present["value"]], p + "ctx")  # [b, kvh, group, hd]
        ctx = node("Reshape", [ctx, "shape_model"], p + "ctx_merged")
        o = node("MatMul", [ctx, weight(p + "wo", [d, d])], p + "o")
        x = node("Add", [x, o], p + "residual1")
        m = rms_norm(x, p + "mlp_norm")
        gate = node("MatMul", [m, weight(p + "w_gate", [d, args.ff])], p + "gate")
        silu = node("Mul", [gate, node("Sigmoid", [gate], p + "sigmoid")], p + "silu")
        up = node("MatMul", [m, weight(p + "w_up", [d, args.ff])], p + "up")
        m = node("MatMul", [node("Mul", [silu, up], p + "swiglu"),
                            weight(p + "w_down", [args.ff, d])], p + "down")
        x = node("Add", [x, m], p + "residual2")
    x = rms_norm(x, "norm")
    logits = node("MatMul", [x, weight("lm_head", [d, args.vocab])], "logits")
    outputs.insert(0, helper.make_tensor_value_info(logits, F16, ["batch", 1, args.vocab]))
    graph = helper.make_graph(nodes, "llama_decode", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, args.out)
    print("%d layers, %.2f B parameters, %.1f GB in float16" % (
        args.layers, offset[0] / 2e9, offset[0] / 1e9))


if __name__ == "__main__":
    main()

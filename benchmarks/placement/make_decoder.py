#!/usr/bin/env python3
"""Writes a GPT-2-style decoder as a shapes-only ONNX graph.

    python3 make_decoder.py OUT.onnx [--layers 48] [--d 1600] [--heads 25]
                            [--seq 1024] [--vocab 50257]

Pre-norm blocks (LayerNormalization, fused QKV MatMul, causal attention
with a mask Add, Softmax, output projection, residual; LayerNormalization,
MLP d -> 4d -> d with Gelu via Erf, residual), a final norm and the LM head.
Weights are external data in a file that is not written: the graph is for
`placer-translate --import-onnx --shapes-only` (placement and memory, not
execution). GPT-2 XL is --layers 48 --d 1600 --heads 25 (1.56 B
parameters); a batch dimension `batch` is left symbolic.
"""
import argparse

import onnx
from onnx import TensorProto, helper

from external_weights import ExternalWeights


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--d", type=int, default=1600)
    parser.add_argument("--heads", type=int, default=25)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--vocab", type=int, default=50257)
    args = parser.parse_args()
    d, h, s = args.d, args.heads, args.seq
    nodes, inits = [], []
    external = ExternalWeights()

    def weight(name, dims):
        # External data in a file that is deliberately absent.
        inits.append(external.tensor(name, dims, TensorProto.FLOAT, 4))
        return name

    def const(name, values, dims, dtype=TensorProto.INT64):
        inits.append(helper.make_tensor(name, dtype, dims, values))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def layer_norm(x, name):
        return node("LayerNormalization",
                    [x, weight(name + ".g", [d]), weight(name + ".b", [d])],
                    name, axis=-1)

    const("shape_heads", [0, s, h, d // h], [4])
    const("shape_model", [0, s, d], [3])
    const("scale", [1.0 / (d // h) ** 0.5], [], TensorProto.FLOAT)
    const("half", [0.5], [], TensorProto.FLOAT)
    const("one", [1.0], [], TensorProto.FLOAT)
    const("rsqrt2", [0.7071067811865476], [], TensorProto.FLOAT)
    mask = [0.0 if j <= i else -1e9 for i in range(s) for j in range(s)]
    const("causal_mask", mask, [s, s], TensorProto.FLOAT)

    x = node("Gather", [weight("wte", [args.vocab, d]), "ids"], "embed", axis=0)
    x = node("Add", [x, weight("wpe", [s, d])], "embed_pos")
    for i in range(args.layers):
        p = "h%d." % i
        a = layer_norm(x, p + "ln1")
        qkv = node("MatMul", [a, weight(p + "qkv.w", [d, 3 * d])], p + "qkv")
        qkv = node("Add", [qkv, weight(p + "qkv.b", [3 * d])], p + "qkv_bias")
        q, k, v = (p + "q", p + "k", p + "v")
        nodes.append(helper.make_node("Split", [qkv], [q, k, v], name=p + "split",
                                      axis=-1))
        heads = {}
        for t, perm in ((q, [0, 2, 1, 3]), (k, [0, 2, 3, 1]), (v, [0, 2, 1, 3])):
            r = node("Reshape", [t, "shape_heads"], t + "_heads")
            heads[t] = node("Transpose", [r], t + "_t", perm=perm)
        scores = node("MatMul", [heads[q], heads[k]], p + "scores")
        scores = node("Mul", [scores, "scale"], p + "scaled")
        scores = node("Add", [scores, "causal_mask"], p + "masked")
        probs = node("Softmax", [scores], p + "probs", axis=-1)
        ctx = node("MatMul", [probs, heads[v]], p + "ctx")
        ctx = node("Transpose", [ctx], p + "ctx_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "shape_model"], p + "ctx_merged")
        o = node("MatMul", [ctx, weight(p + "proj.w", [d, d])], p + "proj")
        o = node("Add", [o, weight(p + "proj.b", [d])], p + "proj_bias")
        x = node("Add", [x, o], p + "residual1")
        m = layer_norm(x, p + "ln2")
        m = node("MatMul", [m, weight(p + "fc.w", [d, 4 * d])], p + "fc")
        m = node("Add", [m, weight(p + "fc.b", [4 * d])], p + "fc_bias")
        # gelu(m) = 0.5 m (1 + erf(m / sqrt 2))
        e = node("Erf", [node("Mul", [m, "rsqrt2"], p + "gelu_in")], p + "gelu_erf")
        e = node("Add", [e, "one"], p + "gelu_1p")
        m = node("Mul", [node("Mul", [m, "half"], p + "gelu_half"), e], p + "gelu")
        m = node("MatMul", [m, weight(p + "out.w", [4 * d, d])], p + "mlp_out")
        m = node("Add", [m, weight(p + "out.b", [d])], p + "mlp_bias")
        x = node("Add", [x, m], p + "residual2")
    x = layer_norm(x, "ln_f")
    logits = node("MatMul", [x, weight("lm_head", [d, args.vocab])], "logits")

    graph = helper.make_graph(
        nodes, "decoder",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", s])],
        [helper.make_tensor_value_info(logits, TensorProto.FLOAT,
                                       ["batch", s, args.vocab])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, args.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes upstream-MLIR test programs (TOSA and linalg on tensors) that
Placer places, splits and runs: what IREE, torch-mlir or a TFLite/TOSA flow
would hand over.

  upstream_programs.py tosa-cnn        small CNN, NHWC: conv, relu, max pool,
                                       conv, depthwise conv, avg pool, FC
  upstream_programs.py tosa-attention  two-head self-attention block with a
                                       residual MLP (matmuls, softmax,
                                       reshape/transpose)
  upstream_programs.py linalg-mlp      MLP with a row softmax in linalg named
                                       ops, generics and reductions

Weights are dense constants from a fixed linear congruential generator, so
every run writes the same text; the one function argument is the input.
"""

import argparse
import math
import struct
import sys


class Weights:
    """Deterministic values in [-scale, scale)."""

    def __init__(self, seed=12345):
        self.state = seed

    def take(self, count, scale):
        values = []
        for _ in range(count):
            self.state = (self.state * 1103515245 + 12345) % (1 << 31)
            values.append((self.state / (1 << 31) * 2 - 1) * scale)
        return values


def tensor(shape, dtype="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dtype + ">"


def dense(values):
    """A dense literal of f32 values: hex of their little-endian bytes, which
    MLIR reads for any shape."""
    return 'dense<"0x%s">' % struct.pack("<%df" % len(values), *values).hex().upper()


class Program:
    """An SSA function body, built op by op in generic form."""

    def __init__(self, weights):
        self.lines = []
        self.count = 0
        self.weights = weights

    def value(self):
        self.count += 1
        return "%%v%d" % self.count

    def op(self, name, operands, types, result, props=None):
        out = self.value()
        props_text = " <{" + props + "}>" if props else ""
        self.lines.append(
            '    %s = "%s"(%s)%s : (%s) -> %s'
            % (out, name, ", ".join(operands), props_text, ", ".join(types),
               result))
        return out

    def raw(self, text):
        out = self.value()
        self.lines.append("    %s = %s" % (out, text))
        return out

    # TOSA helpers -------------------------------------------------------

    def const(self, shape, scale=None, values=None):
        if values is None:
            fan_in = max(1, math.prod(shape[1:]) if len(shape) > 1 else 1)
            values = self.weights.take(math.prod(shape),
                                       scale or 1 / math.sqrt(fan_in))
        return self.op("tosa.const", [], [], tensor(shape),
                       "values = %s : %s" % (dense(values), tensor(shape)))

    def zero_point(self):
        return self.op("tosa.const", [], [], tensor([1]),
                       "values = dense<0.0> : " + tensor([1]))

    def shape(self, dims):
        return self.op("tosa.const_shape", [], [], "!tosa.shape<%d>" % len(dims),
                       "values = dense<[%s]> : tensor<%dxindex>"
                       % (", ".join(map(str, dims)), len(dims)))

    def conv2d(self, x, in_shape, out_channels, kernel, pad):
        n, h, w, c = in_shape
        weight_shape = [out_channels, kernel, kernel, c]
        weight = self.const(weight_shape)
        bias = self.const([out_channels], 0.1)
        out = [n, h + 2 * pad - kernel + 1, w + 2 * pad - kernel + 1,
               out_channels]
        zp_in, zp_w = self.zero_point(), self.zero_point()
        return self.op(
            "tosa.conv2d", [x, weight, bias, zp_in, zp_w],
            [tensor(in_shape), tensor(weight_shape), tensor([out_channels]), tensor([1]), tensor([1])],
            tensor(out),
            "acc_type = f32, dilation = array<i64: 1, 1>, "
            "pad = array<i64: %d, %d, %d, %d>, stride = array<i64: 1, 1>"
            % (pad, pad, pad, pad)), out

    def depthwise(self, x, in_shape, kernel, pad):
        n, h, w, c = in_shape
        weight_shape = [kernel, kernel, c, 1]
        weight = self.const(weight_shape, 1 / kernel)
        bias = self.const([c], 0.1)
        zp_in, zp_w = self.zero_point(), self.zero_point()
        out = [n, h + 2 * pad - kernel + 1, w + 2 * pad - kernel + 1, c]
        return self.op(
            "tosa.depthwise_conv2d", [x, weight, bias, zp_in, zp_w],
            [tensor(in_shape), tensor(weight_shape), tensor([c]), tensor([1]),
             tensor([1])],
            tensor(out),
            "acc_type = f32, dilation = array<i64: 1, 1>, "
            "pad = array<i64: %d, %d, %d, %d>, stride = array<i64: 1, 1>"
            % (pad, pad, pad, pad)), out

    def relu(self, x, shape):
        return self.op("tosa.clamp", [x], [tensor(shape)], tensor(shape),
                       "max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32")

    def binary(self, name, a, b, a_shape, b_shape, out_shape):
        return self.op("tosa." + name, [a, b],
                       [tensor(a_shape), tensor(b_shape)], tensor(out_shape))

    def mul(self, a, b, a_shape, b_shape, out_shape):
        shift = self.op("tosa.const", [], [], "tensor<1xi8>",
                        "values = dense<0> : tensor<1xi8>")
        return self.op("tosa.mul", [a, b, shift],
                       [tensor(a_shape), tensor(b_shape), "tensor<1xi8>"],
                       tensor(out_shape))

    def matmul(self, a, b, a_shape, b_shape):
        out = [a_shape[0], a_shape[1], b_shape[2]]
        zp_a, zp_b = self.zero_point(), self.zero_point()
        return self.op("tosa.matmul", [a, b, zp_a, zp_b],
                       [tensor(a_shape), tensor(b_shape), tensor([1]),
                        tensor([1])], tensor(out)), out

    def reshape(self, x, in_shape, out_shape):
        shape = self.shape(out_shape)
        return self.op("tosa.reshape", [x, shape],
                       [tensor(in_shape), "!tosa.shape<%d>" % len(out_shape)],
                       tensor(out_shape))

    def transpose(self, x, in_shape, perms):
        out = [in_shape[p] for p in perms]
        return self.op("tosa.transpose", [x], [tensor(in_shape)], tensor(out),
                       "perms = array<i32: %s>" % ", ".join(map(str, perms))), out

    def reduce(self, name, x, shape, axis):
        out = list(shape)
        out[axis] = 1
        return self.op("tosa." + name, [x], [tensor(shape)], tensor(out),
                       "axis = %d : i32" % axis), out

    def unary(self, name, x, shape):
        return self.op("tosa." + name, [x], [tensor(shape)], tensor(shape))

    def dense_layer(self, x, shape, out_features, relu):
        """[1, S, D] x [1, D, F] + b, optionally relu."""
        weight = self.const([1, shape[2], out_features],
                            1 / math.sqrt(shape[2]))
        y, out = self.matmul(x, weight, shape, [1, shape[2], out_features])
        bias = self.const([1, 1, out_features], 0.1)
        y = self.binary("add", y, bias, out, [1, 1, out_features], out)
        return (self.relu(y, out) if relu else y), out

    def softmax(self, x, shape, axis):
        peak, reduced = self.reduce("reduce_max", x, shape, axis)
        shifted = self.binary("sub", x, peak, shape, reduced, shape)
        exp = self.unary("exp", shifted, shape)
        total, _ = self.reduce("reduce_sum", exp, shape, axis)
        inverse = self.unary("reciprocal", total, reduced)
        return self.mul(exp, inverse, shape, reduced, shape)

    def function(self, inputs, result, result_type):
        args = ", ".join("%%arg%d: %s" % (i, t) for i, t in enumerate(inputs))
        body = "\n".join(self.lines)
        return ("func.func @main(%s) -> %s {\n%s\n    return %s : %s\n}\n"
                % (args, result_type, body, result, result_type))


def tosa_cnn():
    p = Program(Weights(1))
    x, shape = "%arg0", [1, 16, 16, 3]
    x, shape = p.conv2d(x, shape, 8, 3, 1)
    x = p.relu(x, shape)
    pooled = [1, 8, 8, 8]
    x = p.op("tosa.max_pool2d", [x], [tensor(shape)], tensor(pooled),
             "kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, "
             "stride = array<i64: 2, 2>")
    shape = pooled
    x, shape = p.conv2d(x, shape, 16, 3, 1)
    x = p.relu(x, shape)
    x, shape = p.depthwise(x, shape, 3, 1)
    x = p.relu(x, shape)
    zp_in, zp_out = p.zero_point(), p.zero_point()
    x = p.op("tosa.avg_pool2d", [x, zp_in, zp_out],
             [tensor(shape), tensor([1]), tensor([1])], tensor([1, 1, 1, 16]),
             "acc_type = f32, kernel = array<i64: 8, 8>, "
             "pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>")
    x = p.reshape(x, [1, 1, 1, 16], [1, 1, 16])
    x, shape = p.dense_layer(x, [1, 1, 16], 10, relu=False)
    x = p.reshape(x, shape, [1, 10])
    return p.function([tensor([1, 16, 16, 3])], x, tensor([1, 10]))


def tosa_attention(seq=16, model=32, heads=2, hidden=64):
    p = Program(Weights(2))
    head = model // heads
    x, shape = "%arg0", [1, seq, model]

    def split_heads(v):
        v = p.reshape(v, shape, [seq, heads, head])
        v, _ = p.transpose(v, [seq, heads, head], [1, 0, 2])
        return v  # [heads, seq, head]

    q, _ = p.dense_layer(x, shape, model, relu=False)
    k, _ = p.dense_layer(x, shape, model, relu=False)
    v, _ = p.dense_layer(x, shape, model, relu=False)
    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    kt, _ = p.transpose(k, [heads, seq, head], [0, 2, 1])
    scores, sshape = p.matmul(q, kt, [heads, seq, head], [heads, head, seq])
    scale = p.const([1, 1, 1], values=[1 / math.sqrt(head)])
    scores = p.mul(scores, scale, sshape, [1, 1, 1], sshape)
    probs = p.softmax(scores, sshape, 2)
    context, cshape = p.matmul(probs, v, sshape, [heads, seq, head])
    context, _ = p.transpose(context, cshape, [1, 0, 2])
    context = p.reshape(context, [seq, heads, head], shape)
    attn, _ = p.dense_layer(context, shape, model, relu=False)
    x1 = p.binary("add", x, attn, shape, shape, shape)
    h, hshape = p.dense_layer(x1, shape, hidden, relu=True)
    y, _ = p.dense_layer(h, hshape, model, relu=False)
    out = p.binary("add", x1, y, shape, shape, shape)
    return p.function([tensor(shape)], out, tensor(shape))


def linalg_mlp(rows=16, features=32, hidden=64, classes=16):
    w = Weights(3)
    lines = []
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    row = "affine_map<(d0, d1) -> (d1)>"
    col = "affine_map<(d0, d1) -> (d0)>"
    count = [0]

    def name():
        count[0] += 1
        return "%%%d" % count[0]

    def emit(text):
        out = name()
        lines.append("    %s = %s" % (out, text))
        return out

    zero = emit("arith.constant 0.0 : f32")
    lowest = emit("arith.constant -3.40282347E+38 : f32")

    def filled(shape, value):
        empty = emit("tensor.empty() : %s" % tensor(shape))
        return emit("linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                    % (value, empty, tensor(shape), tensor(shape)))

    def layer(x, inputs, outputs, relu):
        weight = emit("arith.constant %s : %s" % (
            dense(w.take(inputs * outputs, 1 / math.sqrt(inputs))),
            tensor([inputs, outputs])))
        bias = emit("arith.constant %s : %s" % (dense(w.take(outputs, 0.1)),
                                               tensor([outputs])))
        acc = filled([rows, outputs], zero)
        y = emit("linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                 % (x, weight, tensor([rows, inputs]),
                    tensor([inputs, outputs]), acc, tensor([rows, outputs]),
                    tensor([rows, outputs])))
        out = emit("tensor.empty() : %s" % tensor([rows, outputs]))
        body = ["^bb0(%a: f32, %b: f32, %o: f32):",
                "  %s = arith.addf %%a, %%b : f32" % "%s0"]
        result = "%s0"
        if relu:
            body.append("  %%s1 = arith.maximumf %%s0, %s : f32" % zero)
            result = "%s1"
        body.append("  linalg.yield %s : f32" % result)
        return emit(
            "linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = "
            "[\"parallel\", \"parallel\"]} ins(%s, %s : %s, %s) outs(%s : %s) {\n"
            "      %s\n    } -> %s"
            % (ident, row, ident, y, bias, tensor([rows, outputs]),
               tensor([outputs]), out, tensor([rows, outputs]),
               "\n      ".join(body), tensor([rows, outputs])))

    def elementwise(inputs, maps, body, shape):
        out = emit("tensor.empty() : %s" % tensor(shape))
        ins = ", ".join(v for v, _ in inputs)
        types = ", ".join(t for _, t in inputs)
        args = ", ".join("%%i%d: f32" % i for i in range(len(inputs)))
        return emit(
            "linalg.generic {indexing_maps = [%s], iterator_types = "
            "[\"parallel\", \"parallel\"]} ins(%s : %s) outs(%s : %s) {\n"
            "      ^bb0(%s, %%o: f32):\n      %s\n    } -> %s"
            % (", ".join(maps + [ident]), ins, types, out, tensor(shape), args,
               "\n      ".join(body), tensor(shape)))

    def reduce_rows(x, init_value, combine):
        acc = filled([rows], init_value)
        return emit(
            "linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [1]\n"
            "      (%%in: f32, %%init: f32) {\n"
            "        %%r = %s %%in, %%init : f32\n"
            "        linalg.yield %%r : f32\n      }"
            % (x, tensor([rows, classes]), acc, tensor([rows]), combine))

    x = "%arg0"
    h = layer(x, features, hidden, relu=True)
    h = layer(h, hidden, hidden, relu=True)
    logits = layer(h, hidden, classes, relu=False)
    peak = reduce_rows(logits, lowest, "arith.maximumf")
    exp = elementwise(
        [(logits, tensor([rows, classes])), (peak, tensor([rows]))],
        [ident, col],
        ["%d = arith.subf %i0, %i1 : f32", "%e = math.exp %d : f32",
         "linalg.yield %e : f32"], [rows, classes])
    total = reduce_rows(exp, zero, "arith.addf")
    probs = elementwise(
        [(exp, tensor([rows, classes])), (total, tensor([rows]))],
        [ident, col],
        ["%q = arith.divf %i0, %i1 : f32", "linalg.yield %q : f32"],
        [rows, classes])
    return ("func.func @main(%%arg0: %s) -> %s {\n%s\n    return %s : %s\n}\n"
            % (tensor([rows, features]), tensor([rows, classes]),
               "\n".join(lines), probs, tensor([rows, classes])))


PROGRAMS = {
    "tosa-cnn": tosa_cnn,
    "tosa-attention": tosa_attention,
    "linalg-mlp": linalg_mlp,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", choices=sorted(PROGRAMS))
    args = parser.parse_args()
    sys.stdout.write(PROGRAMS[args.program]())


if __name__ == "__main__":
    main()

"""The models of the GPU benchmark, with weights and inputs from formulas.

Both machines build the same models from this file: the build machine
exports and compiles them (scripts/gpu-prepare.sh), the GPU machine runs
them in PyTorch and writes the compiled artifacts' weights
(scripts/gpu-check.sh). A formula per tensor, keyed by its state_dict name,
gives the same weights on both without carrying them (ResNet-50's are
98 MB; a device call carries 64 MiB) and across PyTorch versions (1.13
here, 2.x there). Batch norm stays unfolded in the export
(do_constant_folding=False and TrainingMode.PRESERVE: the EVAL mode fuses it),
so every weight of the compiled program is a
state_dict tensor or a small constant the artifact carries.
"""
import math
import os
import sys
import zlib

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "execution"))
from compare import Decoder  # noqa: E402  (the execution benchmark's GPT-2 decoder)

# name -> (constructor, input name, input shape)
MODELS = {
    "resnet18": ("resnet18", "input", (32, 3, 224, 224)),
    "resnet50": ("resnet50", "input", (32, 3, 224, 224)),
    "mobilenet_v2": ("mobilenet_v2", "input", (32, 3, 224, 224)),
    "gpt2": ("gpt2", "input_ids", (1, 128)),
}


def uniform(name, count):
    """count values in [0, 1), a fixed sequence per name (integer hash)."""
    i = np.arange(count, dtype=np.uint64)
    h = np.uint64(zlib.crc32(name.encode()))
    return ((i * np.uint64(2654435761) + h) % np.uint64(2 ** 32)).astype(np.float64) / 2.0 ** 32


def tensor_value(name, shape):
    """The formula's value of state_dict tensor `name`: He-uniform weights,
    batch-norm statistics and affine parameters near their usual ranges."""
    count = int(np.prod(shape)) if shape else 1
    u = uniform(name, count)
    leaf = name.rsplit(".", 1)[-1]
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[1:]))
        values = (2 * u - 1) * math.sqrt(6.0 / fan_in)
    elif leaf == "running_var":
        values = 0.5 + u
    elif leaf in ("weight",):
        values = 0.5 + u
    else:  # biases, running means
        values = 0.2 * (u - 0.5)
    return values.astype(np.float32).reshape(shape)


def tensor_bytes(name, shape, element_type="f32"):
    """tensor_value's bytes in a compiled weight's `element_type`: f32, or
    bf16 / f16 rounded to nearest even, as placer-autocast converts weights
    (placer-run --gpu-precision)."""
    value = tensor_value(name, shape)
    if element_type == "f32":
        return value.tobytes()
    if element_type == "f16":
        return value.astype(np.float16).tobytes()
    if element_type == "bf16":
        bits = value.view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16).tobytes()
    raise ValueError("no formula bytes for element type " + element_type)


def build(name):
    """The model (eval mode, formula weights) and its input, on the CPU."""
    kind, input_name, shape = MODELS[name]
    torch.manual_seed(0)
    if kind == "gpt2":
        model = Decoder()
        count = int(np.prod(shape))
        x = torch.from_numpy(((np.arange(count) * 7919) % 8192).reshape(shape).astype(np.int64))
    else:
        import torchvision
        model = getattr(torchvision.models, kind)()
        count = int(np.prod(shape))
        x = torch.from_numpy(np.sin(np.arange(count) * 0.37).reshape(shape).astype(np.float32))
    state = model.state_dict()
    with torch.no_grad():
        for key, tensor in state.items():
            if tensor.is_floating_point():
                tensor.copy_(torch.from_numpy(tensor_value(key, tuple(tensor.shape))))
    return model.eval(), input_name, x

"""Initializers whose data is external: one weights.bin beside the model,
each tensor at the next offset. The generators here (make_decoder.py,
make_llama.py) write graphs for `placer-translate --import-onnx
--shapes-only`, where that file may be absent, or write it themselves.
"""
from onnx import TensorProto


class ExternalWeights:
    def __init__(self):
        self.offset = 0  # bytes of weights.bin so far

    def tensor(self, name, dims, data_type, item_bytes):
        """A `data_type` initializer of `dims` at the next offset."""
        t = TensorProto(name=name, data_type=data_type, dims=dims)
        t.data_location = TensorProto.EXTERNAL
        size = item_bytes
        for x in dims:
            size *= x
        for key, value in (("location", "weights.bin"), ("offset", str(self.offset)),
                           ("length", str(size))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        self.offset += size
        return t

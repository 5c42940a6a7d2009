"""Reference outputs of a .tflite model from TFLite's reference kernels.

Usage: tflite_reference.py MODEL IN OUT COUNT. IN holds COUNT input sets, each the model's
inputs' bytes in order; OUT gets, per set, the outputs' bytes in order. The interpreter is
ai-edge-litert's with OpResolverType.BUILTIN_REF (the reference kernels).
"""
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def main():
    model, inp, out, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    it = Interpreter(model_path=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    ins = it.get_input_details()
    outs = it.get_output_details()
    data = open(inp, "rb").read()
    pos = 0
    result = bytearray()
    for _ in range(count):
        for d in ins:
            n = int(np.prod(d["shape"])) * np.dtype(d["dtype"]).itemsize
            arr = np.frombuffer(data[pos : pos + n], dtype=d["dtype"]).reshape(d["shape"])
            pos += n
            it.set_tensor(d["index"], arr)
        it.invoke()
        for d in outs:
            result += it.get_tensor(d["index"]).tobytes()
    if pos != len(data):
        sys.exit("tflite_reference.py: %d input bytes left over" % (len(data) - pos))
    with open(out, "wb") as f:
        f.write(result)


main()

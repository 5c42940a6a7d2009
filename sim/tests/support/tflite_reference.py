"""Reference outputs of a .tflite model from TFLite's reference kernels.

Usage: tflite_reference.py MODEL IN OUT COUNT [OP]. IN holds COUNT input sets, each the
model's inputs' bytes in order; OUT gets, per set, the outputs' bytes in order, or with OP
(a builtin operator name, e.g. FULLY_CONNECTED) the first output tensor of the model's first
such operator (an intermediate tensor, kept with experimental_preserve_all_tensors). The
interpreter is ai-edge-litert's with OpResolverType.BUILTIN_REF (the reference kernels).
OUT.seconds gets the seconds spent in invoke().
"""
import sys
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def main():
    model, inp, out, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    op = sys.argv[5] if len(sys.argv) > 5 else None
    it = Interpreter(
        model_path=model,
        experimental_op_resolver_type=OpResolverType.BUILTIN_REF,
        experimental_preserve_all_tensors=op is not None,
    )
    it.allocate_tensors()
    ins = it.get_input_details()
    outs = it.get_output_details()
    if op is not None:
        found = [o for o in it._get_ops_details() if o["op_name"] == op]
        if not found:
            sys.exit("tflite_reference.py: no %s operator" % op)
        outs = [{"index": int(found[0]["outputs"][0])}]
    data = open(inp, "rb").read()
    pos = 0
    result = bytearray()
    invoke_seconds = 0.0
    for _ in range(count):
        for d in ins:
            n = int(np.prod(d["shape"])) * np.dtype(d["dtype"]).itemsize
            arr = np.frombuffer(data[pos : pos + n], dtype=d["dtype"]).reshape(d["shape"])
            pos += n
            it.set_tensor(d["index"], arr)
        t = time.perf_counter()
        it.invoke()
        invoke_seconds += time.perf_counter() - t
        for d in outs:
            result += it.get_tensor(d["index"]).tobytes()
    if pos != len(data):
        sys.exit("tflite_reference.py: %d input bytes left over" % (len(data) - pos))
    with open(out, "wb") as f:
        f.write(result)
    # The time spent in invoke() (the reference kernels), for the simulator's figures.
    with open(out + ".seconds", "w") as f:
        f.write("%.9f\n" % invoke_seconds)


main()

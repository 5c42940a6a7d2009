#!/usr/bin/env python3
"""Write a tiny int8 TFLite model, for the demo on a clone without the shared data.

One FULLY_CONNECTED layer: input [1, 16] int8, weights [8, 16] int8, bias [8] int32,
output [1, 8] int8, every tensor quantised per tensor. Built with the FlatBuffer builders
Vela ships (ethosu.vela.tflite, in the pinned Vela venv), so it needs nothing else, and its
weights are fixed (no randomness): the same bytes on every machine.

    .venv-vela/bin/python scripts/make-tiny-model.py OUT.tflite
"""
import sys

import flatbuffers
from ethosu.vela.tflite import (
    Buffer,
    BuiltinOperator,
    BuiltinOptions,
    FullyConnectedOptions,
    Model,
    Operator,
    OperatorCode,
    QuantizationParameters,
    SubGraph,
    Tensor,
    TensorType,
)

IN, OUT = 16, 8


def vec(b, start, items, prepend):
    start(b, len(items))
    for x in reversed(items):
        prepend(x)
    return b.EndVector()


def quant(b, scale, zero_point):
    s = vec(b, lambda b, n: QuantizationParameters.StartScaleVector(b, n), [scale], b.PrependFloat32)
    z = vec(b, lambda b, n: QuantizationParameters.StartZeroPointVector(b, n), [zero_point], b.PrependInt64)
    QuantizationParameters.Start(b)
    QuantizationParameters.AddScale(b, s)
    QuantizationParameters.AddZeroPoint(b, z)
    return QuantizationParameters.End(b)


def tensor(b, name, shape, ttype, buffer, q):
    n = b.CreateString(name)
    sh = vec(b, Tensor.StartShapeVector, shape, b.PrependInt32)
    Tensor.Start(b)
    Tensor.AddShape(b, sh)
    Tensor.AddType(b, ttype)
    Tensor.AddBuffer(b, buffer)
    Tensor.AddName(b, n)
    Tensor.AddQuantization(b, q)
    return Tensor.End(b)


def buffer(b, data):
    d = b.CreateByteVector(bytes(data)) if data else None
    Buffer.Start(b)
    if d is not None:
        Buffer.AddData(b, d)
    return Buffer.End(b)


def main(path):
    b = flatbuffers.Builder(1024)
    weights = [((i * 7 + j * 3) % 17) - 8 for i in range(OUT) for j in range(IN)]
    bias = b"".join(((i * 5 - 10) & 0xFFFFFFFF).to_bytes(4, "little") for i in range(OUT))
    buffers = [
        buffer(b, None),
        buffer(b, None),
        buffer(b, [w & 0xFF for w in weights]),
        buffer(b, bias),
        buffer(b, None),
    ]
    tensors = [
        tensor(b, "input", [1, IN], TensorType.TensorType.INT8, 1, quant(b, 0.05, -3)),
        tensor(b, "weights", [OUT, IN], TensorType.TensorType.INT8, 2, quant(b, 0.02, 0)),
        tensor(b, "bias", [OUT], TensorType.TensorType.INT32, 3, quant(b, 0.001, 0)),
        tensor(b, "output", [1, OUT], TensorType.TensorType.INT8, 4, quant(b, 0.1, 2)),
    ]
    FullyConnectedOptions.Start(b)
    opts = FullyConnectedOptions.End(b)
    ins = vec(b, Operator.StartInputsVector, [0, 1, 2], b.PrependInt32)
    outs = vec(b, Operator.StartOutputsVector, [3], b.PrependInt32)
    Operator.Start(b)
    Operator.AddOpcodeIndex(b, 0)
    Operator.AddInputs(b, ins)
    Operator.AddOutputs(b, outs)
    Operator.AddBuiltinOptionsType(b, BuiltinOptions.BuiltinOptions.FullyConnectedOptions)
    Operator.AddBuiltinOptions(b, opts)
    op = Operator.End(b)
    ts = vec(b, SubGraph.StartTensorsVector, tensors, b.PrependUOffsetTRelative)
    ops = vec(b, SubGraph.StartOperatorsVector, [op], b.PrependUOffsetTRelative)
    sin = vec(b, SubGraph.StartInputsVector, [0], b.PrependInt32)
    sout = vec(b, SubGraph.StartOutputsVector, [3], b.PrependInt32)
    name = b.CreateString("main")
    SubGraph.Start(b)
    SubGraph.AddTensors(b, ts)
    SubGraph.AddInputs(b, sin)
    SubGraph.AddOutputs(b, sout)
    SubGraph.AddOperators(b, ops)
    SubGraph.AddName(b, name)
    sg = SubGraph.End(b)
    fc = BuiltinOperator.BuiltinOperator.FULLY_CONNECTED
    OperatorCode.Start(b)
    OperatorCode.AddDeprecatedBuiltinCode(b, fc)
    OperatorCode.AddBuiltinCode(b, fc)
    OperatorCode.AddVersion(b, 1)
    code = OperatorCode.End(b)
    codes = vec(b, Model.StartOperatorCodesVector, [code], b.PrependUOffsetTRelative)
    sgs = vec(b, Model.StartSubgraphsVector, [sg], b.PrependUOffsetTRelative)
    bufs = vec(b, Model.StartBuffersVector, buffers, b.PrependUOffsetTRelative)
    desc = b.CreateString("npuschema tiny int8 model (scripts/make-tiny-model.py)")
    Model.Start(b)
    Model.AddVersion(b, 3)
    Model.AddOperatorCodes(b, codes)
    Model.AddSubgraphs(b, sgs)
    Model.AddDescription(b, desc)
    Model.AddBuffers(b, bufs)
    m = Model.End(b)
    b.Finish(m, file_identifier=b"TFL3")
    with open(path, "wb") as f:
        f.write(b.Output())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make-tiny-model.py OUT.tflite")
    main(sys.argv[1])

"""Small int8 .tflite models, one per operator and parameter family, for the simulator's
oracle (sim/tests/op_models.rs): each made with TensorFlow's converter from a tf.function
(full-integer quantisation from a seeded representative data set, int8 inputs and
outputs), so nothing binary is committed.

Usage: python make-op-models.py OUTDIR   (with scripts/setup-tf's .venv-tf)
Writes OUTDIR/<name>.tflite for every model below, and OUTDIR/.done last.
"""
import os
import sys

import numpy as np
import tensorflow as tf

RNG = np.random.default_rng(20261205)


def const(shape, scale=0.5):
    return tf.constant(RNG.uniform(-scale, scale, size=shape).astype(np.float32))


def model(name, shapes, ranges, fn, int16=False):
    """`fn` over inputs of `shapes` (batch 1), each drawn from its `ranges` interval;
    int8, or with `int16` TFLite's 16x8 quantisation (int16 activations, int8 weights)."""
    sig = [tf.TensorSpec((1,) + s, tf.float32) for s in shapes]
    f = tf.function(fn, input_signature=sig)
    cf = f.get_concrete_function()

    def rep():
        r = np.random.default_rng(7)
        for _ in range(128):
            yield [
                r.uniform(lo, hi, size=(1,) + s).astype(np.float32)
                for s, (lo, hi) in zip(shapes, ranges)
            ]

    conv = tf.lite.TFLiteConverter.from_concrete_functions([cf], f)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = rep
    if int16:
        conv.target_spec.supported_ops = [
            tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8
        ]
        conv.inference_input_type = tf.int16
        conv.inference_output_type = tf.int16
    else:
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    data = conv.convert()
    path = os.path.join(OUT, name + ".tflite")
    with open(path + ".tmp", "wb") as fh:
        fh.write(data)
    os.replace(path + ".tmp", path)
    print("make-op-models:", path, len(data), "bytes")


OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
U = (-1.0, 1.0)

w1, b1 = const((3, 3, 3, 8)), const((8,))
model("conv_3x3_stride2_same", [(9, 9, 3)], [U],
      lambda x: tf.nn.relu(tf.nn.conv2d(x, w1, 2, "SAME") + b1))
w2 = const((3, 3, 4, 6))
model("conv_3x3_dilation2_valid", [(10, 10, 4)], [U],
      lambda x: tf.nn.conv2d(x, w2, 1, "VALID", dilations=2))
w3 = const((5, 3, 2, 16))
model("conv_5x3_stride1x2_same", [(8, 11, 2)], [U],
      lambda x: tf.nn.conv2d(x, w3, [1, 1, 2, 1], "SAME"))
wd = const((3, 3, 4, 2))
model("depthwise_3x3_multiplier2_same", [(8, 8, 4)], [U],
      lambda x: tf.nn.depthwise_conv2d(x, wd, [1, 1, 1, 1], "SAME"))
wd2 = const((3, 3, 8, 1))
model("depthwise_3x3_stride2_valid", [(9, 9, 8)], [U],
      lambda x: tf.nn.depthwise_conv2d(x, wd2, [1, 2, 2, 1], "VALID"))
model("maxpool_2x2_valid", [(8, 8, 5)], [U], lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"))
model("maxpool_3x3_stride2_same", [(9, 9, 5)], [U], lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"))
model("avgpool_2x2_valid", [(8, 8, 5)], [U], lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"))
model("avgpool_3x3_stride2_same", [(9, 9, 5)], [U], lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"))
model("add_same_scales", [(4, 4, 8), (4, 4, 8)], [U, U], lambda x, y: x + y)
model("add_broadcast", [(4, 4, 8), (1, 1, 8)], [U, (-3.0, 3.0)], lambda x, y: x + y)
model("sub_broadcast", [(4, 4, 8), (1, 1, 8)], [U, (-3.0, 3.0)], lambda x, y: x - y)
model("mul_broadcast", [(4, 4, 8), (1, 1, 8)], [U, (-3.0, 3.0)], lambda x, y: x * y)
model("mul", [(4, 4, 8), (4, 4, 8)], [U, (-2.0, 2.0)], lambda x, y: x * y)
model("minimum", [(4, 4, 8), (4, 4, 8)], [U, U], lambda x, y: tf.minimum(x, y))
model("maximum", [(4, 4, 8), (4, 4, 8)], [U, U], lambda x, y: tf.maximum(x, y))
model("abs", [(4, 4, 8)], [U], lambda x: tf.abs(x))
model("softmax", [(12,)], [(-4.0, 4.0)], lambda x: tf.nn.softmax(x))
model("softmax_beta", [(2, 10)], [(-4.0, 4.0)], lambda x: tf.nn.softmax(0.5 * x))
model("tanh", [(4, 4, 8)], [(-3.0, 3.0)], lambda x: tf.tanh(x))
model("sigmoid", [(4, 4, 8)], [(-3.0, 3.0)], lambda x: tf.sigmoid(x))
model("leaky_relu", [(4, 4, 8)], [U], lambda x: tf.nn.leaky_relu(x, 0.2))
model("concatenation", [(4, 4, 3), (4, 4, 5)], [U, (-2.0, 2.0)],
      lambda x, y: tf.concat([x, y], axis=3))
model("resize_nearest", [(4, 4, 3)], [U],
      lambda x: tf.image.resize(x, [8, 8], method="nearest"))
model("resize_bilinear", [(4, 4, 3)], [U],
      lambda x: tf.compat.v1.image.resize_bilinear(x, [8, 8], half_pixel_centers=True))
wf, bf = const((24, 10)), const((10,))
model("fully_connected", [(24,)], [U], lambda x: tf.matmul(x, wf) + bf)

wt = const((3, 3, 6, 4))
model("transpose_conv_stride2_same", [(5, 5, 4)], [U],
      lambda x: tf.nn.conv2d_transpose(x, wt, [1, 10, 10, 6], 2, "SAME"))
model("mean_hw", [(6, 6, 8)], [U], lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True))
model("pad", [(4, 4, 3)], [U], lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
model("strided_slice", [(8, 8, 4)], [U], lambda x: x[:, 1:7:2, 0:8:2, :])
model("relu6_conv", [(6, 6, 3)], [(-8.0, 8.0)],
      lambda x: tf.nn.relu6(tf.nn.conv2d(x, w1, 1, "SAME")))
model("hard_swish", [(4, 4, 8)], [(-4.0, 4.0)],
      lambda x: x * tf.nn.relu6(x + 3.0) / 6.0)
wd3 = const((3, 3, 4, 1))
model("depthwise_3x3_dilation2_same", [(9, 9, 4)], [U],
      lambda x: tf.nn.depthwise_conv2d(x, wd3, [1, 1, 1, 1], "SAME", dilations=[2, 2]))
model("squared_difference", [(4, 4, 8), (4, 4, 8)], [U, U],
      lambda x, y: tf.math.squared_difference(x, y))

# int16 activations (16x8): the i16_ prefix tells the test to compare 16-bit elements.
model("i16_conv", [(9, 9, 3)], [U], lambda x: tf.nn.relu(tf.nn.conv2d(x, w1, 2, "SAME") + b1),
      int16=True)
model("i16_add", [(4, 4, 8), (1, 1, 8)], [U, (-3.0, 3.0)], lambda x, y: x + y, int16=True)
model("i16_mul", [(4, 4, 8), (4, 4, 8)], [U, (-2.0, 2.0)], lambda x, y: x * y, int16=True)
model("i16_maxpool", [(8, 8, 5)], [U], lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), int16=True)
model("i16_avgpool", [(8, 8, 5)], [U], lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"), int16=True)
model("i16_softmax", [(12,)], [(-4.0, 4.0)], lambda x: tf.nn.softmax(x), int16=True)
model("i16_fully_connected", [(24,)], [U], lambda x: tf.matmul(x, wf) + bf, int16=True)
model("i16_tanh", [(4, 4, 8)], [(-3.0, 3.0)], lambda x: tf.tanh(x), int16=True)
model("i16_sigmoid", [(4, 4, 8)], [(-3.0, 3.0)], lambda x: tf.sigmoid(x), int16=True)
# Power-of-two input scales: Vela's (and TFLite's) special case, OFM_SCALE (3 << n, 0).
model("i16_tanh_pot", [(4, 4, 8)], [(-8.0, 8.0)], lambda x: tf.tanh(x), int16=True)
model("i16_sigmoid_pot", [(4, 4, 8)], [(-8.0, 8.0)], lambda x: tf.sigmoid(x), int16=True)
# Tanh and sigmoid of intermediate tensors (a convolution's, an addition's): scales the
# converter picks from the data, not the input's.
model("i16_conv_tanh", [(9, 9, 3)], [U],
      lambda x: tf.tanh(tf.nn.conv2d(x, w1, 2, "SAME") + b1), int16=True)
model("i16_add_sigmoid", [(4, 4, 8), (4, 4, 8)], [U, U], lambda x, y: tf.sigmoid(x + y),
      int16=True)
# Leaky ReLU: IFM and OFM scales differ (Vela lowers it to MUL, MUL and MAX); equal
# (the input range gives both the same symmetric int16 scale: Vela's LRELU elementwise
# mode), with alpha below and above 1.
model("i16_leaky_relu", [(4, 4, 8)], [U], lambda x: tf.nn.leaky_relu(x, 0.2), int16=True)
model("i16_leaky_relu_eq", [(4, 4, 8)], [(-1.0, 3.0)], lambda x: tf.nn.leaky_relu(x, 0.3),
      int16=True)
model("i16_leaky_relu_big", [(4, 4, 8)], [(-1.0, 3.0)], lambda x: tf.nn.leaky_relu(x, 1.5),
      int16=True)

with open(os.path.join(OUT, ".done"), "w") as fh:
    fh.write("ok\n")

"""A whole int8 network nobody tuned the simulator on, for sim/tests/unseen_network.rs: a
MobileNet-style Keras model with seeded random weights (and random BatchNorm statistics,
which the converter folds into the convolutions), converted with full-integer
quantisation from a seeded representative data set, int8 input and output.

  input 48x48x3
  conv 3x3 stride 2 (16) + BatchNorm + ReLU6                       -> 24x24x16
  depthwise 3x3 + BN + ReLU6, pointwise 1x1 (24) + BN + ReLU6      -> 24x24x24
  depthwise 3x3 stride 2 + BN + ReLU6, pointwise (32) + BN + ReLU6 -> 12x12x32
  residual: depthwise 3x3 + BN + ReLU6, pointwise (32) + BN, ADD   -> 12x12x32
  depthwise 3x3 stride 2 + BN + ReLU6, pointwise (48) + BN + ReLU6 -> 6x6x48
  global average pool -> dense (10) -> softmax

Usage: python make-net-model.py OUTDIR   (with scripts/setup-tf's .venv-tf)
Writes OUTDIR/mobilenet_like_48.tflite.
"""
import os
import sys

import numpy as np
import tensorflow as tf

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
tf.keras.utils.set_random_seed(20261205)
RNG = np.random.default_rng(4242)
L = tf.keras.layers


def bn(x):
    """BatchNorm with random (seeded) statistics, so folding it changes the weights."""
    layer = L.BatchNormalization()
    y = layer(x)
    c = x.shape[-1]
    layer.set_weights([
        RNG.uniform(0.5, 1.5, c).astype(np.float32),   # gamma
        RNG.uniform(-0.2, 0.2, c).astype(np.float32),  # beta
        RNG.uniform(-0.1, 0.1, c).astype(np.float32),  # moving mean
        RNG.uniform(0.05, 0.3, c).astype(np.float32),  # moving variance
    ])
    return y


def dw_block(x, out_ch, stride, relu_out=True):
    x = L.DepthwiseConv2D(3, stride, padding="same", use_bias=False)(x)
    x = L.ReLU(6.0)(bn(x))
    x = L.Conv2D(out_ch, 1, use_bias=False)(x)
    x = bn(x)
    return L.ReLU(6.0)(x) if relu_out else x


inp = tf.keras.Input((48, 48, 3), batch_size=1)
x = L.Conv2D(16, 3, 2, padding="same", use_bias=False)(inp)
x = L.ReLU(6.0)(bn(x))
x = dw_block(x, 24, 1)
x = dw_block(x, 32, 2)
x = L.Add()([x, dw_block(x, 32, 1, relu_out=False)])
x = dw_block(x, 48, 2)
x = L.GlobalAveragePooling2D()(x)
x = L.Dense(10, kernel_initializer=tf.keras.initializers.RandomNormal(stddev=1.0))(x)
out = L.Softmax()(x)
net = tf.keras.Model(inp, out)


def image(r):
    """A smooth, image-like input in [-1, 1]: per-channel level and gradients, and noise
    (independent noise alone averages out in the global pool: every output the same)."""
    y, x = np.mgrid[0:48, 0:48] / 47.0
    c = [r.uniform(-0.6, 0.6) + r.uniform(-0.5, 0.5) * x + r.uniform(-0.5, 0.5) * y
         for _ in range(3)]
    img = np.stack(c, axis=-1) + r.uniform(-0.2, 0.2, size=(48, 48, 3))
    return np.clip(img, -1.0, 1.0)[None].astype(np.float32)


def rep():
    r = np.random.default_rng(7)
    for _ in range(128):
        yield [image(r)]


conv = tf.lite.TFLiteConverter.from_keras_model(net)
conv.optimizations = [tf.lite.Optimize.DEFAULT]
conv.representative_dataset = rep
conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
conv.inference_input_type = tf.int8
conv.inference_output_type = tf.int8
data = conv.convert()
path = os.path.join(OUT, "mobilenet_like_48.tflite")
with open(path + ".tmp", "wb") as fh:
    fh.write(data)
os.replace(path + ".tmp", path)
print("make-net-model:", path, len(data), "bytes")

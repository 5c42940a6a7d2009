//! The NPU's `ACTIVATION_FUNCTION_TANH` and `ACTIVATION_FUNCTION_SIGMOID` (what Vela
//! 5.2.0 runs int16 TANH and LOGISTIC on for the U55; it lowers 8-bit ones to a LUT).
//!
//! How the hardware computes them is not documented publicly. What the pinned Vela's
//! source says (Vela 5.2.0's `regor`, in the PyPI sdist):
//!
//! * `tflite_scaling.cpp` `TanhSigmoidScale` programs `OFM_SCALE` so that the IFM (less its
//!   zero point) is rescaled to the input scale 1/(3*4096): `(3 << n, 0)` for an input
//!   scale of 2^-12 (tanh also 2^-11), else `0x3000 * ifm_scale` doubled until it is at
//!   least 2^14, its shift the number of doublings. That is, value for value, TFLite's
//!   int16 `TanhPrepare`/`SigmoidPrepare` `input_multiplier`/`input_left_shift`;
//! * `lstm.cpp`: "Ofm scaling occurs before activation function in hardware", whose
//!   output "is always Q0.15 format"; and the hardware's sigmoid has "a larger range due to
//!   intermediate higher precision" than the LSTM reference's (gemmlowp's Q3.12 logistic,
//!   at most 32757): the scaled value is not narrowed to 16 bits first;
//! * `tflite_graph_optimiser.cpp` `ConvertTanhSigmoidToLUT16` (regor's int16 tanh/sigmoid
//!   for the U85, which has no such functions) builds an interpolated LUT from
//!   `SIGMOID_TABLE`, sigmoid(i/24) in 0.16 fixed point, 256 entries: TFLite's
//!   `sigmoid_table_uint16`.
//!
//! So the functions here are TFLite's int16 reference kernels
//! (`reference_integer_ops::Tanh` and `Logistic`) on the value `OFM_SCALE` produced:
//! sigmoid(i/24) interpolated over 8 (tanh) or 9 (sigmoid) fractional bits of the scaled
//! value's magnitude, saturating past the table. `sim/tests/op_models.rs`' `i16_tanh` and
//! `i16_sigmoid` pin it: bit-exact with ai-edge-litert's reference kernels on 100 seeded
//! inputs each over the whole int16 range, for U55-32, -128 and -256.

/// sigmoid(i/24) * 65536 (the last entry 65535), i = 0..=255: regor's `SIGMOID_TABLE`
/// (Vela 5.2.0, `ethosu/regor/compiler/tflite_graph_optimiser.cpp`), TFLite's
/// `sigmoid_table_uint16` (`tensorflow/lite/kernels/internal/common.h`).
const SIGMOID_TABLE: [u16; 256] = [
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
];

/// Entry `i` of [`SIGMOID_TABLE`] (`i` at most 255), widened.
fn entry(i: u64) -> i64 {
    let i = usize::try_from(i).unwrap_or(usize::MAX);
    SIGMOID_TABLE.get(i).map_or(65535, |v| i64::from(*v))
}

/// The table interpolated at `abs / 2^frac` (`frac` 8 or 9): `None` past its end (the
/// caller saturates), else `(table[h] << frac) + (abs mod 2^frac) * (table[h+1] - table[h])`.
fn interpolate(abs: u64, frac: u32) -> Option<i64> {
    let h = abs >> frac;
    if h >= 255 {
        return None;
    }
    let (a, b) = (entry(h), entry(h.saturating_add(1)));
    let t = i64::try_from(abs & ((1u64 << frac) - 1)).unwrap_or(0);
    Some((a << frac).saturating_add(t.saturating_mul(b.saturating_sub(a))))
}

/// `ACTIVATION_FUNCTION_TANH` of the scaled value `v` (units of 1/(3*4096)): Q0.15.
pub(crate) fn tanh(v: i64) -> i64 {
    let r = interpolate(v.unsigned_abs(), 8).unwrap_or(0xFFFF << 8);
    let r = if v >= 0 {
        r - (1 << 23) + (1 << 7)
    } else {
        -r + (1 << 23) + (1 << 7) - 1
    };
    r >> 8
}

/// `ACTIVATION_FUNCTION_SIGMOID` of the scaled value `v` (units of 1/(3*4096)): Q0.15.
pub(crate) fn sigmoid(v: i64) -> i64 {
    let r = interpolate(v.unsigned_abs(), 9).unwrap_or(0x7FFF << 10);
    let r = if v >= 0 {
        r + (1 << 9)
    } else {
        (1 << 25) - r + (1 << 9) - 1
    };
    r >> 10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sigmoid_of_i_over_24() {
        // Within one unit of round(65536 * sigmoid(i / 24)) (the published table rounds
        // some entries up), increasing from one half.
        for (i, v) in SIGMOID_TABLE.iter().enumerate() {
            let want = (65536.0 / (1.0 + (-(i as f64) / 24.0).exp()))
                .round()
                .min(65535.0);
            assert!(
                (f64::from(*v) - want).abs() <= 1.0,
                "entry {i}: {v} vs {want}"
            );
        }
        assert_eq!(SIGMOID_TABLE[0], 32768);
        assert_eq!(SIGMOID_TABLE[255], 65535);
        assert!(SIGMOID_TABLE.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn odd_symmetry_and_saturation() {
        // tanh(0) = 0, sigmoid(0) = 1/2; saturated far out (TFLite's kernel gives 1, not
        // 0, for a large negative sigmoid input); tanh odd to within the
        // kernel's one-unit asymmetry, sigmoid(x) + sigmoid(-x) = 1 likewise.
        assert_eq!(tanh(0), 0);
        assert_eq!(sigmoid(0), 16384);
        assert_eq!(tanh(1 << 20), 32767);
        assert_eq!(tanh(-(1 << 20)), -32767);
        assert_eq!(sigmoid(1 << 20), 32767);
        assert_eq!(sigmoid(-(1 << 20)), 1);
        for v in (-40_000i64..40_000).step_by(7) {
            assert!((tanh(v) + tanh(-v)).abs() <= 1, "tanh {v}");
            assert!((sigmoid(v) + sigmoid(-v) - 32768).abs() <= 1, "sigmoid {v}");
        }
        // One input unit is 1/12288: tanh(1) = 0.76159 (24956 in Q0.15), sigmoid(1) =
        // 0.73106 (23955).
        assert!((tanh(12288) - 24956).abs() <= 2);
        assert!((sigmoid(12288) - 23955).abs() <= 2);
    }
}

//! The ratio measurement every bench table uses: two functions timed in the same run, the
//! two sides interleaved round by round (A, B, B, A, ... so machine noise lands on both),
//! each side's fastest round and the median of the per-round ratios.

// Host-side timing arithmetic on small counts.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::indexing_slicing,
    clippy::float_arithmetic,
    missing_docs
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The number of rounds, and whether this is a smoke run: `cargo bench` passes `--bench`;
/// without it (`cargo test --all-targets`) one short round per comparison, every fixture and
/// equality still checked. `RATIO_ROUNDS` overrides `default`.
#[must_use]
pub fn rounds(default: usize) -> (usize, bool) {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let n = if smoke {
        1
    } else {
        std::env::var("RATIO_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    (n, smoke)
}

/// Time `iters` calls of `f`, per call.
pub fn time<F: FnMut() -> u64>(f: &mut F, iters: u32) -> Duration {
    let start = Instant::now();
    let mut acc = 0u64;
    for _ in 0..iters {
        acc = acc.wrapping_add(f());
    }
    black_box(acc);
    start.elapsed() / iters
}

/// Iterations so that one sample of `f` takes about `target`.
pub fn calibrate<F: FnMut() -> u64>(f: &mut F, target: Duration) -> u32 {
    let mut n = 1u32;
    loop {
        let t = time(f, n) * n;
        if t >= target / 4 || n >= 1 << 28 {
            let per = t.as_secs_f64() / f64::from(n);
            return ((target.as_secs_f64() / per.max(1e-12)) as u32).clamp(1, 1 << 28);
        }
        n *= 4;
    }
}

pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub struct Outcome {
    /// Fastest round of A (the least disturbed by other work on the machine).
    pub a: f64,
    /// Fastest round of B.
    pub b: f64,
    /// b / a: above 1 means A is faster.
    pub speed: f64,
    /// Median over rounds of t_b / t_a (agrees with `speed` on a quiet machine).
    pub median_speed: f64,
}

/// Interleaved comparison of `a` (ours) and `b` (the reference side) over `rounds` rounds
/// (A, B, B, A, ...), each side calibrated to about 15 ms a round (200 us in a smoke run).
pub fn compare<A: FnMut() -> u64, B: FnMut() -> u64>(mut a: A, mut b: B, rounds: usize) -> Outcome {
    let target = if rounds == 1 {
        Duration::from_micros(200)
    } else {
        Duration::from_millis(15)
    };
    let (na, nb) = (calibrate(&mut a, target), calibrate(&mut b, target));
    let (mut ta, mut tb, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..rounds {
        let (x, y) = if i % 2 == 0 {
            let x = time(&mut a, na);
            (x, time(&mut b, nb))
        } else {
            let y = time(&mut b, nb);
            (time(&mut a, na), y)
        };
        ta.push(x.as_secs_f64());
        tb.push(y.as_secs_f64());
        r.push(y.as_secs_f64() / x.as_secs_f64());
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (a, b) = (min(&ta), min(&tb));
    Outcome {
        a,
        b,
        speed: b / a,
        median_speed: median(&mut r),
    }
}

pub fn fmt_time(s: f64) -> String {
    if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if s >= 1e-6 {
        format!("{:.2} us", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

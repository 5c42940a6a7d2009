//! Benchmarks against peers live in benches/.

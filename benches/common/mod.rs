//! Shared by the benchmark programs: the end-to-end test harness (real binary, real
//! database), a latency summary, and small helpers.

// Each benchmark program uses a part of this module.
#![allow(dead_code)]

#[allow(dead_code)]
#[path = "../../tests/api/helpers.rs"]
pub mod helpers;

use std::time::Duration;

/// Median and 99th percentile of `samples` (sorted in place).
pub fn percentiles(samples: &mut [Duration]) -> (Duration, Duration) {
    if samples.is_empty() {
        return (Duration::ZERO, Duration::ZERO);
    }
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.99))
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// An environment variable as a number, or `default`.
pub fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// variants.rs: the Rust program of test_build_variants.py: main -> outer -> hot_leaf (generic,
// kept out of line), built with and without -C force-frame-pointers. For SECS seconds (argv[1],
// default 1).
use std::time::{Duration, Instant};

#[inline(never)]
fn hot_leaf<T: Into<u64> + Copy>(n: T) -> u64 {
    let mut s: u64 = 0;
    for i in 0..n.into() {
        s = s.wrapping_add(i.wrapping_mul(i) ^ (s >> 3));
    }
    s
}

// black_box after the call keeps it a call (LLVM made outer a tail jump to hot_leaf, which leaves
// outer out of every stack).
#[inline(never)]
fn outer(n: u32) -> u64 {
    std::hint::black_box(hot_leaf(n)).wrapping_add(1)
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut sink: u64 = 0;
    while Instant::now() < end {
        sink = sink.wrapping_add(outer(std::hint::black_box(400000)));
    }
    std::process::exit((sink & 1) as i32 * 0);
}

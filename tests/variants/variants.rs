// variants.rs: the Rust program of test_build_variants.py: main -> outer -> hot_leaf (generic,
// kept out of line), built with and without -C force-frame-pointers. For SECS seconds (argv[1],
// default 1) of the process's CPU time: as many samples on a busy machine as on an idle one.

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

fn cpu_secs() -> f64 {
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

#[inline(never)]
fn hot_leaf<T: Into<u64> + Copy>(n: T) -> u64 {
    let mut s: u64 = 0;
    for i in 0..n.into() {
        s = s.wrapping_add(i.wrapping_mul(i) ^ (s >> 3));
    }
    s
}

static mut LAST: u64 = 0;

// The volatile store after the call keeps it a call (LLVM made outer a tail jump to hot_leaf, which
// leaves outer out of every stack). No std::hint::black_box: Debian's rustc 1.63 has it unstable.
#[inline(never)]
fn outer(n: u32) -> u64 {
    let r = hot_leaf(n);
    unsafe { std::ptr::write_volatile(std::ptr::addr_of_mut!(LAST), r) };
    r.wrapping_add(1)
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let end = cpu_secs() + secs;
    let mut sink: u64 = 0;
    while cpu_secs() < end {
        let n = unsafe { std::ptr::read_volatile(std::ptr::addr_of!(LAST)) } as u32 & 1;
        sink = sink.wrapping_add(outer(400000 + n));
    }
    std::process::exit((sink & 1) as i32 * 0);
}

// SPDX-License-Identifier: GPL-2.0-or-later
// The jitdump tests' workload: run with node --perf-prof jitsplit.js SECONDS. alphaWork does 7 of
// every 10 loop iterations and betaWork 3, the same loop body, so their samples split 70/30. Every
// 20 ms it also compiles a fresh small function: V8 writes the jitdump through a 4 KiB stdio
// buffer, and without new code the last records (the hot functions' optimized code) would stay in
// it. (By the clock, not by rounds: a slow machine flushes as often; and not more often: each load
// record becomes an ELF file under perf inject --jit.)
function alphaWork(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003;
  return s;
}
function betaWork(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003;
  return s;
}
const until = Date.now() + (Number(process.argv[2]) || 3) * 1000;
let total = 0, round = 0, next = 0;
console.log("ready");
while (Date.now() < until) {
  total += alphaWork(70000) + betaWork(30000);
  if (Date.now() >= next) {
    next = Date.now() + 20;
    total += new Function("x", "return x + " + round++)(1);
  }
}
console.log(total > 0 ? "done" : "zero");

// A hot JavaScript function for the JIT tests: run with node --perf-basic-prof hot.js SECONDS.
function hotLoopFunction(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s * 31 + i) % 1000003;
  return s;
}
function outerCaller() {
  let t = 0;
  for (let k = 0; k < 200; k++) t += hotLoopFunction(100000);
  return t;
}
const until = Date.now() + (Number(process.argv[2]) || 3) * 1000;
console.log("ready");
let total = 0;
while (Date.now() < until) total += outerCaller();
console.log(total > 0 ? "done" : "zero");

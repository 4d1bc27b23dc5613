#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed corpora for the fuzzers from real small recordings made now with perf record (nothing binary is
# committed): fuzz/make-corpus.sh OUTDIR [BUILD_DIR]  ->  OUTDIR/perfdata/ (whole files, cut to a few
# KiB where bigger) and OUTDIR/parse/ (single records, each prefixed with the 48-byte parse_cfg of its
# file); with BUILD_DIR, OUTDIR/gopclntab/: the Go tables test_gopclntab writes, one per layout; with
# node, OUTDIR/jitdump/: pieces of a node --perf-prof dump.
set -eu
out=${1:?usage: make-corpus.sh OUTDIR [BUILD_DIR]}
mkdir -p "$out/perfdata" "$out/parse"
if [ -n "${2:-}" ]; then
  mkdir -p "$out/gopclntab"
  "$2/tests/symbolize/test_gopclntab" --corpus "$out/gopclntab"
fi
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
busy=(python3 -c 'import time
t=time.time()
while time.time()-t<0.1: sum(i*i for i in range(1000))')
rec() { perf record -q -N -B -F 199 "$@" >/dev/null 2>&1; }
rec -g -o "$t/fp.data" -- "${busy[@]}"
rec -z -g -o "$t/z.data" -- "${busy[@]}"
rec -e cpu-clock,task-clock -o "$t/two.data" -- "${busy[@]}"
rec --call-graph dwarf,1024 -o "$t/dwarf.data" -- "${busy[@]}"
perf record -q -N -B -F 199 -g -o - -- "${busy[@]}" >"$t/pipe.data" 2>/dev/null
python3 - "$t" "$out" <<'PY'
import os, struct, sys
src, out = sys.argv[1], sys.argv[2]
LIMIT = 16384
for name in sorted(os.listdir(src)):
    b = open(os.path.join(src, name), "rb").read()
    pipe = struct.unpack_from("<Q", b, 8)[0] == 16
    # whole files, the head only when big: the header, the attrs and the first records
    open(os.path.join(out, "perfdata", name), "wb").write(b[:LIMIT] if len(b) > LIMIT else b)
    if pipe:
        continue
    attr_size, attrs_off = struct.unpack_from("<QQ", b, 16)
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    attr = b[attrs_off:attrs_off + attr_size - 16]
    sample_type, read_format = struct.unpack_from("<QQ", attr, 24)
    flags = struct.unpack_from("<Q", attr, 40)[0]
    branch, regs_user = struct.unpack_from("<QQ", attr, 72)
    regs_intr = struct.unpack_from("<Q", attr, 96)[0] if len(attr) >= 104 else 0
    cfg = struct.pack("<6Q", sample_type, read_format, regs_user, regs_intr, branch,
                      (flags >> 18) & 1)
    off, end, seen = data_off, data_off + data_size, {}
    while off + 8 <= end:
        typ, size = struct.unpack_from("<I", b, off)[0], struct.unpack_from("<H", b, off + 6)[0]
        if size < 8:
            break
        if seen.get(typ, 0) < 4 and typ < 64 and size <= LIMIT:
            seen[typ] = seen.get(typ, 0) + 1
            open(os.path.join(out, "parse", f"{name}-{typ}-{seen[typ]}"), "wb").write(cfg + b[off:off + size])
        off += size
print(f"corpus: {len(os.listdir(os.path.join(out, 'perfdata')))} files, "
      f"{len(os.listdir(os.path.join(out, 'parse')))} records")
PY
# fuzz_jitdump: the head of a real dump (node --perf-prof, when node is here), cut at 16 KiB, and the
# same header before a cut from its middle (debug-info and unwinding records of JavaScript code).
if command -v node >/dev/null; then
	mkdir -p "$out/jitdump"
	(cd "$t" && node --perf-prof --interpreted-frames-native-stack --no-logfile-per-isolate --logfile=+ \
		-e 'let s = 0; for (let i = 0; i < 3e6; i++) s += i % 7; new Function("return 1")()' \
		>/dev/null 2>&1)
	dump=$(ls "$t"/jit-*.dump 2>/dev/null | head -1)
	if [ -n "$dump" ]; then
		head -c 16384 "$dump" >"$out/jitdump/head"
		{ head -c 40 "$dump"; tail -c 8192 "$dump"; } >"$out/jitdump/tail"
		echo "corpus: 2 jitdump files"
	fi
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Annotate on JIT code: perftop -o F -- node --perf-prof jitsplit.js, then F replayed in tmux; a on
# alphaWork's row and s show its machine code, read from the jitdump. The reference: the code bytes
# of the load record at the first instruction's address, cut out of the dump by this test (decoded
# with Python's struct) and disassembled by objdump: every instruction on screen must be at an
# address where objdump starts one, with the same mnemonic. Exit 77 (skip) only when tmux, node or
# objdump is missing or the kernel refuses perf_event_open.
set -u
pt=${1:?usage: test_jitdump_annotate_tmux.sh PERFTOP FIXTURE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "SKIP: node is not installed"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: objdump is not installed"; exit 77; }
. "$here/../lib/tmuxlib.sh" jitdump-annotate
d=$(mktemp -d /tmp/perftop-jitdump-annotate-XXXXXX)
trap 'tm kill-server 2>/dev/null; rm -rf "$d"' EXIT

(cd "$d" && "$pt" -b -n 1 -d 1.5 -o "$d/a.data" -- sh -c 'exec "$@" >/dev/null' sh node --perf-prof \
	--interpreted-frames-native-stack --no-turbo-inlining --no-logfile-per-isolate --logfile=+ \
	"$here/jitsplit.js" 1.5 >/dev/null 2>"$d/err") || fail "perftop -o: $(cat "$d/err")"
dump=$(ls "$d"/jit-*.dump 2>/dev/null | head -1)
[ -n "$dump" ] || fail "node --perf-prof left no jit-PID.dump in $d"
ok

tm new-session -d -s t -x 160 -y 50 "$pt -i $d/a.data -d 0.5; echo PERFTOP-EXITED:\$?; sleep 60"
wait_for 'JS:\*alphaWork ' || fail "no row of alphaWork's optimized code"
tm send-keys -t t Space
wait_for 'PAUSED' || fail "no PAUSED after Space"
tm send-keys -t t / a l p h a W o r k Enter
tm send-keys -t t a
wait_for 'table › annotate JS:.alphaWork' || fail "no annotate view of alphaWork after a"
tm send-keys -t t s
wait_for 'Address +Instruction' || fail "no assembly after s"
tm send-keys -t t Home
sleep 0.5
screen | sed -nE 's/^ [ 0-9.%]* +([0-9a-f]+):  ([a-z0-9]+).*/\1 \2/p' >"$d/shown"
[ "$(wc -l <"$d/shown")" -ge 10 ] || fail "fewer than 10 instructions on screen"
sym=$(screen | sed -nE 's/^ table › annotate (JS:[^ ]+) .*/\1/p' | head -1)
ok

# The test's own decode of the dump: the last complete load record at the first address shown.
start=$(head -1 "$d/shown" | cut -d' ' -f1)
python3 - "$dump" "$start" "$sym" "$d/code.bin" <<'PY' || fail "the dump has no load of $sym at 0x$start"
import struct, sys
dump, start, sym, out = sys.argv[1], int(sys.argv[2], 16), sys.argv[3], sys.argv[4]
b = open(dump, "rb").read()
off, found = struct.unpack_from("<I", b, 8)[0], None
while off + 16 <= len(b):
    rid, size = struct.unpack_from("<II", b, off)
    if size < 16 or off + size > len(b):
        break
    if rid == 0:
        addr, length = struct.unpack_from("<QQ", b, off + 32)
        end = b.index(b"\0", off + 56)
        if addr == start:
            found = (b[off + 56:end].decode(), b[end + 1:end + 1 + length])
    off += size
if not found or not found[0].startswith(sym + " "):
    sys.exit(1)
open(out, "wb").write(found[1])
PY
objdump -D -b binary -m i386:x86-64 -M intel --adjust-vma=0x"$start" "$d/code.bin" |
	sed -nE 's/^ +([0-9a-f]+):\t([0-9a-f]{2} )+ *\t([a-z0-9]+).*/\1 \3/p' >"$d/objdump"
[ -s "$d/objdump" ] || fail "objdump decoded nothing of the dump's bytes"
verdict=$(awk 'NR == FNR { m[$1] = $2; next }
	{ n++; if (!($1 in m)) bad = bad " " $1 "(no instruction there)"; else if (m[$1] != $2) bad = bad " " $1 "(" $2 " vs " m[$1] ")" }
	END { print bad == "" ? "OK " n : "BAD" bad }' "$d/objdump" "$d/shown")
case $verdict in
OK*) echo "$sym at 0x$start: ${verdict#OK } instructions shown, each at objdump's address with its mnemonic" ;;
*) fail "annotate's instructions differ from objdump's of the dump's bytes:${verdict#BAD}" ;;
esac
ok
tm send-keys -t t Escape q
wait_for 'PERFTOP-EXITED:0' || fail "q did not exit 0"
ok
echo "$checks passed, 0 failed"

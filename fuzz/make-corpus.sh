#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Seed corpora for the fuzzers from real files made now (nothing binary is committed):
# fuzz/make-corpus.sh OUTDIR [BUILD_DIR [FUZZ_BUILD_DIR]], one directory of OUTDIR per target:
#   perfdata/, parse/  small recordings made with perf record (whole files, cut to a few KiB where
#                      bigger) and their single records, each prefixed with the 48-byte parse_cfg
#   gopclntab/         (BUILD_DIR) the Go tables test_gopclntab writes, one per layout
#   jitdump/, jitmap/  (node) pieces of a node --perf-prof dump and a --perf-basic-prof map; jitmap/
#                      also a hand-made map of every form the parser takes
#   unwind/, plt/      small binaries compiled now (PIE, not, -z now, CET's .plt.sec, static without
#                      .eh_frame_hdr) and a few of the system's, whole
#   cfi/               their .eh_frame sections, after the 16-byte head fuzz_cfi reads
#   buildid/           their first 4 KiB and their build-id notes alone
#   vdso/              this process's vdso, dumped from /proc/self/mem
#   settings/, pushurl/  a settings file as perftop writes it; --push URLs with their companions;
#                      with them (text) a hand-made PERF_RECORD_CGROUP and cgroup sample in parse/
#   container/         cgroup paths of each runtime's layout and their state files, as they write them
#   pyread/            (FUZZ_BUILD_DIR, pyenv's or Debian's CPythons 3.8-3.13) pysnap's snapshots of
#                      running CPythons: what one sample reads of them
# CORPUS_PARTS="perfdata gopclntab node jitmap elf cc vdso text pyread" (the default: all) makes
# only those (elf: the system's binaries, cc: those compiled now); the suite's replay of the harnesses (tests/fuzz) makes the quick ones.
set -eu
out=${1:?usage: make-corpus.sh OUTDIR [BUILD_DIR [FUZZ_BUILD_DIR]]}
parts=" ${CORPUS_PARTS:-perfdata gopclntab node jitmap elf cc vdso text pyread} "
want() { [[ $parts == *" $1 "* ]]; }
if [ -n "${2:-}" ] && want gopclntab; then
  mkdir -p "$out/gopclntab"
  "$2/tests/symbolize/test_gopclntab" --corpus "$out/gopclntab"
fi
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
if want perfdata; then
mkdir -p "$out/perfdata" "$out/parse"
busy=(python3 -c 'import time
t=time.time()
while time.time()-t<0.1: sum(i*i for i in range(1000))')
rec() { perf record -q -N -B -F 199 "$@" >/dev/null 2>&1; }
rec -g -o "$t/fp.data" -- "${busy[@]}"
rec -z -g -o "$t/z.data" -- "${busy[@]}"
rec -e cpu-clock,task-clock -o "$t/two.data" -- "${busy[@]}"
rec --call-graph dwarf,1024 -o "$t/dwarf.data" -- "${busy[@]}"
# cgroup ids in samples and PERF_RECORD_CGROUP (perf synthesizes the existing cgroups)
rec --all-cgroups -o "$t/cgroup.data" -- "${busy[@]}" || true
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
fi
# fuzz_jitdump: the head of a real dump (node --perf-prof, when node is here), cut at 16 KiB, and the
# same header before a cut from its middle (debug-info and unwinding records of JavaScript code).
if want node && command -v node >/dev/null; then
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

if want jitmap; then
# fuzz_jitmap: a hand-made map of every form (0x or not, tabs, spaces in names, a line still being
# written), and the head and a middle cut of node --perf-basic-prof's.
mkdir -p "$out/jitmap"
printf '%s\n' '7f0000001000 40 LazyCompile:~main /app/main.js:1' '0x7f0000001040 0x20 Builtin:ArgumentsAdaptorTrampoline' \
	'7f0000001030 10 [overlap] later line wins' '7F0000002000	8	py::<module>:/srv/x.py' \
	'  7f0000003000 100   trailing blanks   ' 'not a line' '7f0000004000 0 zero size' \
	'ffffffffffffff00 200 wraps' >"$out/jitmap/handmade"
printf '7f0000005000 10 cut' >>"$out/jitmap/handmade"
if want node && command -v node >/dev/null; then
	# node's own pid names its map: started in the background of a shell that is already in $t
	(cd "$t"; node --perf-basic-prof -e 'let s = 0; for (let i = 0; i < 3e6; i++) s += i % 7; new Function("return 1")()' \
		>/dev/null 2>&1 & echo $! >"$t/node.pid"; wait) || true
	map=/tmp/perf-$(cat "$t/node.pid").map
	if [ -f "$map" ]; then
		head -c 8192 "$map" >"$out/jitmap/node-head"
		tail -c 8192 "$map" >"$out/jitmap/node-tail"
		rm -f "$map"
	fi
fi
fi

if want elf; then
# The ELF targets: small binaries compiled now in the forms the readers tell apart, and a few of the
# system's small ones, whole.
mkdir -p "$out/unwind" "$out/plt" "$out/cfi" "$out/buildid"
cat >"$t/p.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) { char b[64]; snprintf(b, sizeof(b), "%d", argc); puts(b);
	return (int)strlen(argv[0]) + atoi(b) + (int)(long)getenv("X"); }
C
cat >"$t/s.c" <<'C'
static int leaf(int x) { return x * 3; }
int mid(int x) { return leaf(x) + 1; }
void _start(void) { mid(2); __asm__ volatile("mov $60, %eax; xor %edi, %edi; syscall"); }
C
if want cc; then
	cc=$(command -v gcc || command -v cc)
	"$cc" -O1 -o "$t/elf-pie" "$t/p.c" 2>/dev/null || true
	"$cc" -O1 -no-pie -o "$t/elf-nopie" "$t/p.c" 2>/dev/null || true
	"$cc" -O1 -Wl,-z,now -o "$t/elf-now" "$t/p.c" 2>/dev/null || true
	"$cc" -O1 -fcf-protection=full -Wl,-z,ibtplt -o "$t/elf-ibt" "$t/p.c" 2>/dev/null || true
	"$cc" -O1 -fno-omit-frame-pointer -Wl,--no-eh-frame-hdr -o "$t/elf-nohdr" "$t/p.c" 2>/dev/null || true
	"$cc" -O1 -static -nostdlib -fasynchronous-unwind-tables -o "$t/elf-static" "$t/s.c" 2>/dev/null || true
fi
for f in /usr/bin/true /usr/bin/dirname /usr/bin/yes; do [ -f "$f" ] && cp "$f" "$t/elf-sys-${f##*/}"; done
python3 - "$t" "$out" <<'PY'
import os, struct, sys
src, out = sys.argv[1], sys.argv[2]
def sections(b):
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
    sh = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    stroff = sh[shstrndx][4]
    for s in sh:
        name = b[stroff + s[0]:b.index(b"\0", stroff + s[0])].decode()
        yield name, s
n = 0
for name in sorted(os.listdir(src)):
    if not name.startswith("elf-"):
        continue
    b = open(os.path.join(src, name), "rb").read()
    if len(b) <= 65536:
        open(os.path.join(out, "unwind", name), "wb").write(b)
        open(os.path.join(out, "plt", name), "wb").write(b)
    open(os.path.join(out, "buildid", name + "-head"), "wb").write(b[:4096])
    text = 0
    for sname, s in sections(b):
        if sname == ".text":
            text = s[3]
    for sname, s in sections(b):
        if sname == ".eh_frame" and s[5] <= 65536:
            head = struct.pack("<QQ", s[3], text + 0x10)
            open(os.path.join(out, "cfi", name), "wb").write(head + b[s[4]:s[4] + s[5]])
        if sname == ".note.gnu.build-id":
            open(os.path.join(out, "buildid", name + "-note"), "wb").write(b[s[4]:s[4] + s[5]])
    n += 1
print(f"corpus: {n} ELF files for unwind, plt, cfi and buildid")
PY
fi

if want vdso; then
# this shell's vdso (the kernel's own image, as vdso.c reads it), from /proc/PID/mem at its mapping
mkdir -p "$out/vdso"
while read -r range _ _ _ _ name; do
	if [ "$name" = "[vdso]" ]; then
		lo=$((16#${range%-*})) hi=$((16#${range#*-}))
		dd if=/proc/$$/mem of="$out/vdso/self" bs=4096 skip=$((lo / 4096)) count=$(((hi - lo) / 4096)) \
			status=none 2>/dev/null || true
	fi
done </proc/$$/maps
fi

if want text; then
# fuzz_settings: a file with every key, as perftop writes it, and one as a person edits it.
mkdir -p "$out/settings" "$out/pushurl"
printf '# perftop settings\norder=shared-object\ninvert=yes\nmode=zero\nrefresh=2.5\nhidden=pid,tid\nflame=icicle\nmouse=no\nnames=raw\n' \
	>"$out/settings/all"
printf '# a comment\n\n  order = Total  \r\nmode=decay\nmouse=off\nhidden=\n' >"$out/settings/edited"
# fuzz_pushurl: a URL, then an application name, labels and a header, one a line.
printf 'http://localhost:4040\nmyapp\nenv=prod\nregion=eu-1\nAuthorization: Bearer x\n' >"$out/pushurl/pyroscope"
printf 'https://us%%40er:p%%3Ass@[::1]:4443/prefix/\nperftop\nk=v\nX-Scope-OrgID: 7\n' >"$out/pushurl/auth-v6"
printf 'parcas://grpc.example.org:443\napp.name\n_a1=b\n' >"$out/pushurl/parca"
# fuzz_parse: a PERF_RECORD_CGROUP and a sample with PERF_SAMPLE_CGROUP, by hand (the 48-byte
# parse_cfg first: sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CGROUP, sample_id_all), so that
# the suite's replay has them without perf record
mkdir -p "$out/parse"
python3 - "$out/parse" <<'PY'
import struct, sys
st = (1 << 16) | 1 | 2 | 4 | 0x80 | 0x100 | (1 << 21)
cfg = struct.pack("<6Q", st, 0, 0, 0, 0, 1)
trailer = struct.pack("<IIQIIQ", 42, 43, 1000, 1, 0, 7)   # tid, time, cpu, identifier
path = b"/system.slice/docker-0123abcd.scope\0"
path += b"\0" * (-len(path) % 8)
body = struct.pack("<Q", 0x1f00000abc) + path + trailer
open(sys.argv[1] + "/handmade-cgroup", "wb").write(cfg + struct.pack("<IHH", 19, 0, 8 + len(body)) + body)
body = struct.pack("<QQIIQIIQQ", 7, 0xffffffff81000000, 42, 43, 1001, 1, 0, 1000000, 0x1f00000abc)
open(sys.argv[1] + "/handmade-cgroup-sample", "wb").write(cfg + struct.pack("<IHH", 9, 1, 8 + len(body)) + body)
PY
# fuzz_container: cgroup paths of each layout (container.h), and state files as the runtimes write
# them (trimmed): Docker's config.v2.json, containerd's OCI config.json, containers/storage's list.
mkdir -p "$out/container"
id=3f4b1c2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b
uid=0b4f5a1e_1c2d_4e3f_8a9b_0c1d2e3f4a5b
printf '/system.slice/docker-%s.scope' $id >"$out/container/docker"
printf '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope' \
	$uid $id >"$out/container/k8s-systemd"
printf '/kubepods/besteffort/pod%s/%s' "${uid//_/-}" $id >"$out/container/k8s-cgroupfs"
printf '/machine.slice/libpod-conmon-%s.scope' $id >"$out/container/podman-conmon"
printf '/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service' >"$out/container/unit"
printf '{"StreamConfig":{},"MountPoints":{"/data":{"Name":"vol1"}},"ID":"%s","Name":"/web"}' $id \
	>"$out/container/config.v2.json"
printf '{"ociVersion":"1.1.0","annotations":{"io.kubernetes.cri.container-name":"nginx","io.kubernetes.cri.sandbox-name":"web-5d9","io.kubernetes.cri.sandbox-namespace":"default","io.kubernetes.pod.name":"x\\u00e9"}}' \
	>"$out/container/config.json"
printf '[{"id":"%s","names":["db","alias"],"metadata":"{\\"id\\":\\"x\\"}"}]' $id >"$out/container/containers.json"
fi

# fuzz_pyread: snapshots of running CPythons (a recursion three deep, then a loop), one per version
# found, made by pysnap (in FUZZ_BUILD_DIR) as one sample reads them.
if want pyread && [ -n "${3:-}" ] && [ -x "$3/fuzz/pysnap" ]; then
	mkdir -p "$out/pyread"
	for v in 3.8 3.9 3.10 3.11 3.12 3.13; do
		py=$(ls -d "$HOME"/.pyenv/versions/$v*/bin/python$v 2>/dev/null | head -1)
		[ -z "$py" ] && py=$(command -v python$v || true)
		[ -z "$py" ] && continue
		"$py" -c '
import time
def spin(t):
    while time.time() < t: sum(i * i for i in range(100))
def outer(n, t):
    return outer(n - 1, t) if n else spin(t)
outer(3, time.time() + 3)' &
		pid=$!
		sleep 1
		for k in 1 2; do
			"$3/fuzz/pysnap" "$pid" "$pid" "$out/pyread/py$v-$k" >/dev/null 2>&1 || true
		done
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	done
	echo "corpus: $(ls "$out/pyread" | wc -l) pyread snapshots"
fi

# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers of the process-name tests (JIT, vdso, deleted binaries, containers): start a workload and
wait until it says "ready", sum rows over snapshots, find a chrooted process's host pid, remove
the perf map files a JIT left in /tmp, and read the vdso image's function symbols."""
import os
import re
import subprocess
import time

from e2elib import fail


def start(cmd, **kw):
    """Starts cmd with a stdout pipe and waits for its 'ready' line (at most 20 s)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **kw)
    line = p.stdout.readline()
    if "ready" not in line:
        p.kill()
        fail(f"{' '.join(cmd)} did not start: {line!r}")
    p.ready = line  # what follows "ready", e.g. jitspin's pid and code address
    return p


def stop(p):
    if p and p.poll() is None:
        p.kill()
    if p:
        p.wait()


def rows(snaps):
    """(dso, sym) -> summed self over all snapshots."""
    out = {}
    for s in snaps:
        for r in s["rows"]:
            k = (r.get("dso"), r.get("sym"))
            out[k] = out.get(k, 0.0) + r.get("self", 0.0)
    return out


def top(merged, n=8):
    return [(k, round(v, 2)) for k, v in sorted(merged.items(), key=lambda kv: -kv[1])[:n]]


def child_pid(pid, timeout=5.0):
    """The (single) child of pid, e.g. the process unshare -f started."""
    until = time.time() + timeout
    while time.time() < until:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        except OSError:
            pass
        time.sleep(0.05)
    fail(f"no child of {pid}")


def remove_jit_maps(merged):
    """Removes /tmp/perf-PID.map of every [JIT] tid PID dso seen (node leaves them behind)."""
    for dso, _ in merged:
        m = re.fullmatch(r"\[JIT\] tid (\d+)", dso or "")
        if m:
            try:
                os.unlink(f"/tmp/perf-{m.group(1)}.map")
            except OSError:
                pass


def vdso_image():
    """The bytes of this process's vdso (every process of one kernel maps the same image)."""
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip().endswith("[vdso]"):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                with open("/proc/self/mem", "rb") as m:
                    m.seek(lo)
                    return m.read(hi - lo)
    fail("this process has no [vdso] mapping")


def elf_functions(image):
    """[(start, end, name)] of the function symbols of an ELF64 image (.dynsym and .symtab), at
    offsets in the image (vaddr less the first PT_LOAD's vaddr, plus its file offset)."""
    import struct
    if image[:4] != b"\x7fELF" or image[4] != 2:
        fail("the vdso is not an ELF64 image")
    phoff, shoff = struct.unpack_from("<QQ", image, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", image, 0x36)
    bias = None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr = struct.unpack_from("<IIQQ", image, phoff + i * phentsize)
        if p_type == 1 and bias is None:
            bias = p_vaddr - p_offset
    bias = bias or 0
    secs = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize) for i in range(shnum)]
    out = set()
    for _, sh_type, _, _, off, size, link, _, _, entsize in secs:
        if sh_type not in (2, 11) or not entsize:   # SHT_SYMTAB, SHT_DYNSYM
            continue
        stroff = secs[link][4]
        for j in range(size // entsize):
            st_name, st_info, _, shndx, value, sz = struct.unpack_from("<IBBHQQ", image, off + j * entsize)
            if (st_info & 0xf) != 2 or shndx == 0 or not value:   # STT_FUNC, defined
                continue
            end = image.index(b"\0", stroff + st_name)
            name = image[stroff + st_name:end].decode(errors="replace")
            out.add((value - bias, value - bias + max(sz, 1), name))
    return sorted(out)

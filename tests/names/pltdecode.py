# SPDX-License-Identifier: GPL-2.0-or-later
"""The PLT of an x86-64 ELF binary decoded by the tests, independently of perftop: the section
headers, relocation sections and symbol tables parsed here, each PLT entry's instructions decoded, its
`jmp *disp(%rip)` followed to its GOT slot and the slot's relocation to the name it fills it with
(JUMP_SLOT, GLOB_DAT: the relocation's symbol; IRELATIVE: the ifunc at its addend, in the binary's
own symbols). Used by test_plt_stubs.py and test_plt_stubs_record.py."""
import os
import struct

from nameslib import fail

SHT_SYMTAB, SHT_RELA, SHT_DYNSYM, SHF_ALLOC, SHF_EXECINSTR = 2, 4, 11, 2, 4
STT_FUNC, STT_GNU_IFUNC = 2, 10
R_GLOB_DAT, R_JUMP_SLOT, R_IRELATIVE = 6, 7, 37


class Elf:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            b = self.b = f.read()
        if b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
            fail(f"{path}: not a 64-bit little-endian ELF file")
        (self.type, self.machine, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum,
         shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", b, 16)
        self.phdrs = [struct.unpack_from("<IIQQQQQQ", b, phoff + i * phentsize) for i in range(phnum)]
        self.shdrs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
        strtab = self.shdrs[shstrndx]
        self.names = [self.cstr(strtab[4] + s[0]) for s in self.shdrs]

    def cstr(self, off):
        return self.b[off:self.b.index(b"\0", off)].decode()

    def section(self, i):
        """(name, type, flags, addr, offset, size, link)"""
        s = self.shdrs[i]
        return self.names[i], s[1], s[2], s[3], s[4], s[5], s[6]

    def symbols(self, i):
        """[(name, value, type)] of the symbol table in section i."""
        _, _, _, _, off, size, link = self.section(i)
        stroff = self.shdrs[link][4]
        out = []
        for k in range(size // 24):
            name, info, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", self.b, off + 24 * k)
            out.append((self.cstr(stroff + name) if name else "", value, info & 15, shndx))
        return out

    def build_id(self):
        """The GNU build-id note's bytes (hex), or None."""
        for i, sh in enumerate(self.shdrs):
            if sh[1] != 7:   # SHT_NOTE
                continue
            pos, end = sh[4], sh[4] + sh[5]
            while pos + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from("<III", self.b, pos)
                name_end = pos + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and self.b[pos + 12:pos + 12 + namesz] == b"GNU\0":
                    return self.b[name_end:name_end + descsz].hex()
                pos = name_end + ((descsz + 3) & ~3)
        return None

    def debug_file(self):
        """The separate debug file of this build under /usr/lib/debug/.build-id, or None."""
        bid = self.build_id()
        path = f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug" if bid else None
        return path if path and os.path.isfile(path) else None

    def exec_segment(self):
        """(vaddr, offset, memsz) of the executable PT_LOAD."""
        for typ, flags, off, vaddr, _, _, memsz, _ in self.phdrs:
            if typ == 1 and flags & 1:
                return vaddr, off, memsz
        fail(f"{self.path}: no executable PT_LOAD")


def expected_names(elf):
    """{GOT slot address: (set of acceptable names, how they were found)} from every loaded RELA
    section. IRELATIVE: the ifunc symbols at the addend, else any function symbol there."""
    at = {}
    debug = elf.debug_file()
    for f in [elf] + ([Elf(debug)] if debug else []):
        for i, sh in enumerate(f.shdrs):
            if sh[1] not in (SHT_SYMTAB, SHT_DYNSYM):
                continue
            for name, value, typ, shndx in f.symbols(i):
                if name and shndx and typ in (STT_FUNC, STT_GNU_IFUNC):
                    # a debug file's symbol may carry its version (logf@@GLIBC_2.27): not part of
                    # the function's name
                    at.setdefault(value, set()).add((name.split("@")[0] or name, typ))
    slots = {}
    for i in range(len(elf.shdrs)):
        name, typ, flags, _, off, size, link = elf.section(i)
        if typ != SHT_RELA or not flags & SHF_ALLOC:
            continue
        syms = elf.symbols(link) if link and elf.shdrs[link][1] in (SHT_SYMTAB, SHT_DYNSYM) else []
        for k in range(size // 24):
            r_offset, r_info, addend = struct.unpack_from("<QQq", elf.b, off + 24 * k)
            rtype, rsym = r_info & 0xffffffff, r_info >> 32
            if rtype in (R_JUMP_SLOT, R_GLOB_DAT) and rsym and rsym < len(syms):
                kind = "JUMP_SLOT" if rtype == R_JUMP_SLOT else "GLOB_DAT"
                slots[r_offset] = ({syms[rsym][0]}, f"{name} {kind}")
            elif rtype == R_IRELATIVE:
                cands = at.get(addend, set())
                ifuncs = {n for n, t in cands if t == STT_GNU_IFUNC}
                slots[r_offset] = (ifuncs or {n for n, _ in cands},
                                   f"{name} IRELATIVE {addend:#x}")
    return slots


def insn(b, i):
    """(length, kind, disp) of the PLT instruction at b[i:], or (0, None, 0)."""
    if b[i:i + 4] == b"\xf3\x0f\x1e\xfa":
        return 4, "endbr64", 0
    bnd = 1 if b[i:i + 1] == b"\xf2" else 0
    j = i + bnd
    if b[j:j + 2] == b"\xff\x25" and len(b) >= j + 6:
        return bnd + 6, "jmp*", struct.unpack_from("<i", b, j + 2)[0]
    if not bnd and b[j:j + 2] == b"\xff\x35" and len(b) >= j + 6:
        return 6, "push*", 0
    if b[j:j + 1] == b"\xe9" and len(b) >= j + 5:
        return bnd + 5, "jmp", 0
    if bnd:
        return 0, None, 0
    if b[i:i + 1] == b"\x68" and len(b) >= i + 5:
        return 5, "push", struct.unpack_from("<i", b, i + 1)[0]
    if b[i:i + 1] in (b"\x90", b"\xcc"):
        return 1, "pad", 0
    k = i
    while k < len(b) and b[k] == 0x66:
        k += 1
    if k > i and b[k:k + 1] == b"\x90":
        return k - i + 1, "pad", 0
    if b[k:k + 1] == b"\x2e":
        k += 1
    if b[k:k + 2] != b"\x0f\x1f" or k + 2 >= len(b):
        return 0, None, 0
    mod, rm = b[k + 2] >> 6, b[k + 2] & 7
    disp = 1 if mod == 1 else 4 if mod == 2 or (mod == 0 and rm == 5) else 0
    n = k + 3 - i + (1 if mod != 3 and rm == 4 else 0) + disp
    return (n, "pad", 0) if i + n <= len(b) else (0, None, 0)


def plt_entries(elf):
    """[(section, [instruction addresses], GOT slot or None, push index or None)] of every PLT
    section. An entry starts at an endbr64, at PLT0's push, at a jmp through the GOT after anything
    but endbr64 or PLT0's push, or at a push $n after anything but such a jmp or endbr64."""
    out = []
    for i in range(len(elf.shdrs)):
        name, _, flags, addr, off, size, _ = elf.section(i)
        if not flags & SHF_EXECINSTR or not (name in (".plt", ".iplt") or name.startswith(".plt.")):
            continue
        b = elf.b[off:off + size]
        pos, prev, cur = 0, None, None
        while pos < size:
            n, kind, val = insn(b, pos)
            if not n:
                fail(f"{os.path.basename(elf.path)}: {name}+{pos:#x}: bytes {b[pos:pos + 8].hex()} are "
                     "no PLT instruction this test knows")
            if (kind in ("endbr64", "push*") or (kind == "jmp*" and prev not in ("endbr64", "push*")) or
                    (kind == "push" and prev not in ("jmp*", "endbr64"))):
                cur = [name, [], None, None]
                out.append(cur)
            if cur is not None:
                cur[1].append(addr + pos)
                if kind == "jmp*" and cur[2] is None:
                    cur[2] = addr + pos + n + val
                if kind == "push":
                    cur[3] = val
            prev = kind
            pos += n
    return out




def entries_named(elf):
    """[(section, [instruction addresses], names)] of every PLT entry: names is the set of
    acceptable NAME@plt for an entry that jumps through a named slot (aliases of one function at an
    IRELATIVE addend), else ("unnamed", names its push $n may give) for PLT0, a lazy IBT entry or an
    ifunc with no symbol."""
    slots = expected_names(elf)
    relaplt = next((i for i, n in enumerate(elf.names) if n == ".rela.plt"), None)
    out = []
    for sec, addrs, slot, push in plt_entries(elf):
        if slot is not None and slot in slots and slots[slot][0]:
            want, how = slots[slot]
            out.append((sec, addrs, {n + "@plt" for n in want},
                        f"entry at {addrs[0]:#x} -> slot {slot:#x} ({how})"))
            continue
        ok = set()
        if push is not None and relaplt is not None:
            _, _, _, _, off, size, _ = elf.section(relaplt)
            if 0 <= push < size // 24:
                r_offset, _, _ = struct.unpack_from("<QQq", elf.b, off + 24 * push)
                if r_offset in slots:
                    ok = {n + "@plt" for n in slots[r_offset][0]}
        out.append((sec, addrs, ("unnamed", ok), f"entry at {addrs[0]:#x} (jumps through no named "
                    f"slot{', push ' + str(push) if push is not None else ''})"))
    return out


def name_ok(want, name):
    """Whether perftop's name for an address of an entry is right: one of the entry's names, or
    for an entry with none, no name of another entry."""
    if isinstance(want, tuple):
        return name is None or not name.endswith("@plt") or name in want[1]
    return name in want

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Turns a little-endian perf.data (file format, no compression) into the file a big-endian machine's
perf would have written for the same recording: every field in big-endian byte order, as the
kernel and perf lay out their structures there.

usage: swap_endian.py IN OUT

What is converted, field by field:
  - the file header (magic, sizes, sections, the feature bitmap as four u64 words);
  - the attrs: each perf_event_attr field by its size (u16, u32, u64) and its word of bitfields,
    which a big-endian compiler allocates from the most significant bit: field bit n goes to byte
    n/8, bit 7 - n%8 (perf's reader reverses the bits of each byte, util/session.c swap_bitfield),
    and a field wider than one bit keeps its most significant bit first (precise_ip);
  - the ids of each attr;
  - every record of the data section by type: its header, then MMAP, MMAP2 (inode and build-id
    forms), COMM, FORK/EXIT, LOST, LOST_SAMPLES, THROTTLE/UNTHROTTLE, SWITCH(_CPU_WIDE), KSYMBOL,
    BPF_EVENT, CGROUP, NAMESPACES and the sample_id trailer of each (u32 pairs as two u32s), SAMPLE
    field by field from sample_type (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD,
    READ, CALLCHAIN, RAW, REGS_USER, STACK_USER, WEIGHT(_STRUCT), DATA_SRC, TRANSACTION, REGS_INTR,
    PHYS_ADDR, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE; BRANCH_STACK is refused: its entries are
    bitfields too), and perf's own FINISHED_ROUND, FINISHED_INIT, ID_INDEX, THREAD_MAP, CPU_MAP,
    EVENT_UPDATE, TIME_CONV;
  - the feature sections HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM,
    CMDLINE, EVENT_DESC, BUILD_ID, PMU_MAPPINGS, SAMPLE_TIME, CLOCKID; the others are dropped (their
    bits cleared).
Anything else (a record type or sample field not listed, a COMPRESSED record) is refused with an
error rather than left in the wrong byte order. Output bytes are built from converted fields only.
"""
import struct
import sys

MAGIC = b"PERFILE2"
HDR = 104

# perf_event_attr: (offset, format) of each field up to config3; 40 is the bitfield word.
ATTR_FIELDS = [(0, "I"), (4, "I"), (8, "Q"), (16, "Q"), (24, "Q"), (32, "Q"), (40, "bits"),
               (48, "I"), (52, "I"), (56, "Q"), (64, "Q"), (72, "Q"), (80, "Q"), (88, "I"),
               (92, "i"), (96, "Q"), (104, "I"), (108, "H"), (110, "H"), (112, "I"), (116, "I"),
               (120, "Q"), (128, "Q")]
# The bitfields of perf_event_attr in declaration order: (first bit, width). All one bit wide but
# precise_ip (bits 15-16) and __reserved_1 (38-63).
ATTR_BITS = [(i, 1) for i in range(15)] + [(15, 2)] + [(i, 1) for i in range(17, 38)] + [(38, 26)]

S = {k: 1 << i for i, k in enumerate(
    "IP TID TIME ADDR READ CALLCHAIN ID CPU PERIOD STREAM_ID RAW BRANCH_STACK REGS_USER STACK_USER "
    "WEIGHT DATA_SRC IDENTIFIER TRANSACTION REGS_INTR PHYS_ADDR AUX CGROUP DATA_PAGE_SIZE "
    "CODE_PAGE_SIZE WEIGHT_STRUCT".split())}
RF_TOTAL_TIME_ENABLED, RF_TOTAL_TIME_RUNNING, RF_ID, RF_GROUP, RF_LOST = 1, 2, 4, 8, 16
MISC_MMAP_BUILD_ID = 1 << 14

FEAT = {"BUILD_ID": 2, "HOSTNAME": 3, "OSRELEASE": 4, "VERSION": 5, "ARCH": 6, "NRCPUS": 7,
        "CPUDESC": 8, "CPUID": 9, "TOTAL_MEM": 10, "CMDLINE": 11, "EVENT_DESC": 12,
        "PMU_MAPPINGS": 16, "SAMPLE_TIME": 21, "CLOCKID": 23}


class Refused(Exception):
    pass


class Conv:
    """Reads little-endian fields from src at a cursor and appends them big-endian to out."""

    def __init__(self, src, pos, end):
        self.src, self.pos, self.end = src, pos, end
        self.out = bytearray()

    def need(self, n):
        if self.pos + n > self.end:
            raise Refused(f"a field runs past its record at byte {self.pos}")

    def f(self, fmt, n=1):
        """n fields of struct format fmt (one letter); returns the values."""
        size = struct.calcsize("<" + fmt)
        self.need(size * n)
        vals = struct.unpack_from(f"<{n}{fmt}", self.src, self.pos)
        self.out += struct.pack(f">{n}{fmt}", *vals)
        self.pos += size * n
        return vals if n != 1 else vals[0]

    def raw(self, n):
        """n bytes copied as they are (strings, memory)."""
        self.need(n)
        self.out += self.src[self.pos:self.pos + n]
        self.pos += n

    def rest(self):
        self.raw(self.end - self.pos)

    def string(self):
        """perf's header string: u32 len, then len bytes."""
        n = self.f("I")
        self.raw(n)


def attr_bits_be(v):
    """The bitfield word v of a little-endian attr, as a big-endian compiler lays it out."""
    be = 0
    for pos, width in ATTR_BITS:
        val = (v >> pos) & ((1 << width) - 1)
        be |= val << (64 - pos - width)
    return struct.pack(">Q", be)


def conv_attr(src, off, size):
    """size bytes of a perf_event_attr at off, big-endian."""
    out = bytearray(size)
    for foff, fmt in ATTR_FIELDS:
        if fmt == "bits":
            if foff + 8 <= size:
                out[foff:foff + 8] = attr_bits_be(struct.unpack_from("<Q", src, off + foff)[0])
            continue
        n = struct.calcsize(fmt)
        if foff + n <= size:
            out[foff:foff + n] = struct.pack(">" + fmt, *struct.unpack_from("<" + fmt, src, off + foff))
    if size > 136 and any(src[off + 136:off + size]):
        raise Refused(f"attr fields past config3 (size {size})")
    return bytes(out)


def attr_info(src, off):
    st, rf = struct.unpack_from("<QQ", src, off + 24)
    bits = struct.unpack_from("<Q", src, off + 40)[0]
    size = struct.unpack_from("<I", src, off + 4)[0]
    regs_user = struct.unpack_from("<Q", src, off + 80)[0] if size >= 88 else 0
    regs_intr = struct.unpack_from("<Q", src, off + 96)[0] if size >= 104 else 0
    branch = struct.unpack_from("<Q", src, off + 72)[0] if size >= 80 else 0
    return {"sample_type": st, "read_format": rf, "sample_id_all": (bits >> 18) & 1,
            "regs_user": regs_user, "regs_intr": regs_intr, "branch": branch}


def conv_trailer(c, a):
    """The sample_id trailer (fields in the kernel's order)."""
    st = a["sample_type"]
    if st & S["TID"]:
        c.f("I", 2)
    for k in ("TIME", "ID", "STREAM_ID"):
        if st & S[k]:
            c.f("Q")
    if st & S["CPU"]:
        c.f("I", 2)
    if st & S["IDENTIFIER"]:
        c.f("Q")


def trailer_size(a):
    if not a["sample_id_all"]:
        return 0
    st = a["sample_type"]
    return 8 * sum(1 for k in ("TID", "TIME", "ID", "STREAM_ID", "CPU", "IDENTIFIER") if st & S[k])


def conv_read(c, rf):
    if rf & RF_GROUP:
        nr = c.f("Q")
        if rf & RF_TOTAL_TIME_ENABLED:
            c.f("Q")
        if rf & RF_TOTAL_TIME_RUNNING:
            c.f("Q")
        per = 1 + bool(rf & RF_ID) + bool(rf & RF_LOST)
        c.f("Q", nr * per) if nr else None
    else:
        n = 1 + bool(rf & RF_TOTAL_TIME_ENABLED) + bool(rf & RF_TOTAL_TIME_RUNNING) + \
            bool(rf & RF_ID) + bool(rf & RF_LOST)
        c.f("Q", n)


def conv_sample(c, a):
    st = a["sample_type"]
    unknown = st & ~sum(S.values())
    if unknown or st & (S["BRANCH_STACK"] | S["AUX"]):
        raise Refused(f"sample_type 0x{st:x}: fields this converter does not swap")
    for k in ("IDENTIFIER", "IP"):
        if st & S[k]:
            c.f("Q")
    if st & S["TID"]:
        c.f("I", 2)
    for k in ("TIME", "ADDR", "ID", "STREAM_ID"):
        if st & S[k]:
            c.f("Q")
    if st & S["CPU"]:
        c.f("I", 2)
    if st & S["PERIOD"]:
        c.f("Q")
    if st & S["READ"]:
        conv_read(c, a["read_format"])
    if st & S["CALLCHAIN"]:
        nr = c.f("Q")
        if nr:
            c.f("Q", nr)
    if st & S["RAW"]:
        n = c.f("I")
        c.raw(n)          # the raw payload's layout is the tracepoint's: kept as bytes
    if st & S["REGS_USER"]:
        if c.f("Q"):
            n = bin(a["regs_user"]).count("1")
            c.f("Q", n) if n else None
    if st & S["STACK_USER"]:
        n = c.f("Q")
        if n:
            c.raw(n)      # memory of the process: bytes as they were
            c.f("Q")      # dyn_size
    if st & (S["WEIGHT"] | S["WEIGHT_STRUCT"]):
        # WEIGHT_STRUCT's u32/u16/u16 are declared in the other order on big-endian machines so
        # that the word is the same number: one u64
        c.f("Q")
    for k in ("DATA_SRC", "TRANSACTION"):
        if st & S[k]:
            c.f("Q")
    if st & S["REGS_INTR"]:
        if c.f("Q"):
            n = bin(a["regs_intr"]).count("1")
            c.f("Q", n) if n else None
    for k in ("PHYS_ADDR", "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE"):
        if st & S[k]:
            c.f("Q")
    if c.pos != c.end:
        raise Refused(f"a sample has {c.end - c.pos} bytes after its fields")


def conv_record(src, p, a):
    """One record at p (little-endian) as big-endian bytes, or None to drop it."""
    typ, misc, size = struct.unpack_from("<IHH", src, p)
    c = Conv(src, p, p + size)
    c.f("I")
    c.f("H", 2)
    tsz = trailer_size(a) if typ < 64 and typ != 9 else 0
    body_end = p + size - tsz
    c.end = body_end
    if typ == 9:                                   # SAMPLE
        conv_sample(c, a)
    elif typ in (1, 10):                           # MMAP, MMAP2
        c.f("I", 2)
        c.f("Q", 3)
        if typ == 10:
            if misc & MISC_MMAP_BUILD_ID:
                c.raw(4)                           # u8 size, u8 + u16 reserved (zero)
                c.raw(20)
            else:
                c.f("I", 2)
                c.f("Q", 2)
            c.f("I", 2)                            # prot, flags
        c.rest()                                   # file name
    elif typ == 3:                                 # COMM
        c.f("I", 2)
        c.rest()
    elif typ in (4, 7):                            # EXIT, FORK
        c.f("I", 4)
        c.f("Q")
    elif typ == 2:                                 # LOST
        c.f("Q", 2)
    elif typ == 13:                                # LOST_SAMPLES
        c.f("Q")
    elif typ in (5, 6):                            # THROTTLE, UNTHROTTLE
        c.f("Q", 3)
    elif typ == 14:                                # SWITCH
        pass
    elif typ == 15:                                # SWITCH_CPU_WIDE
        c.f("I", 2)
    elif typ == 16:                                # NAMESPACES
        c.f("I", 2)
        nr = c.f("Q")
        c.f("Q", 2 * nr) if nr else None
    elif typ == 17:                                # KSYMBOL
        c.f("Q")
        c.f("I")
        c.f("H", 2)
        c.rest()
    elif typ == 18:                                # BPF_EVENT
        c.f("H", 2)
        c.f("I")
        c.raw(8)
    elif typ == 19:                                # CGROUP
        c.f("Q")
        c.rest()
    elif typ in (68, 82):                          # FINISHED_ROUND, FINISHED_INIT
        pass
    elif typ == 69:                                # ID_INDEX: nr, {id, idx, cpu, tid}[nr]
        c.f("Q", (size - 8) // 8)
    elif typ == 73:                                # THREAD_MAP: nr, {u64 pid, char comm[16]}[nr]
        nr = c.f("Q")
        for _ in range(nr):
            c.f("Q")
            c.raw(16)
    elif typ == 74:                                # CPU_MAP
        t = c.f("H")
        if t == 0:                                 # u16 nr, u16 cpu[nr]
            nr = c.f("H")
            c.f("H", nr) if nr else None
        elif t == 2:                               # u8 any_cpu, u8 pad, u16 start, u16 end
            c.raw(2)
            c.f("H", 2)
        elif t == 1:
            nr, long_size = c.f("H", 2)
            if long_size == 4:
                c.f("I", nr) if nr else None
            else:
                raise Refused(f"CPU_MAP mask of long size {long_size}")
        else:
            raise Refused(f"CPU_MAP type {t}")
        c.rest()                                   # padding to 8
    elif typ == 78:                                # EVENT_UPDATE: type, id, then by type
        t = c.f("Q")
        c.f("Q")
        if t in (0, 2):                            # UNIT, NAME: a string
            c.rest()
        elif t == 1:                               # SCALE: a double (then padding)
            c.f("Q")
            c.rest()
        else:
            return None                            # CPUS: dropped
    elif typ == 79:                                # TIME_CONV
        c.f("Q", 4)
        if size >= 8 + 40:
            c.f("Q")
        c.rest()                                   # u8 caps
    elif typ in (81, 83):
        raise Refused("COMPRESSED records: record without -z")
    else:
        raise Refused(f"record type {typ} at byte {p}")
    if c.pos != c.end:
        raise Refused(f"record type {typ} at byte {p}: {c.end - c.pos} bytes left over")
    c.end = p + size
    if tsz:
        if not a["sample_id_all"]:
            raise Refused("trailer without sample_id_all")
        conv_trailer(c, a)
    if len(c.out) != size:
        raise Refused(f"record type {typ} at byte {p}: converted to {len(c.out)} of {size} bytes")
    return bytes(c.out)


def conv_feature(src, bit, off, size, attr_size_of):
    c = Conv(src, off, off + size)
    if bit in (FEAT["HOSTNAME"], FEAT["OSRELEASE"], FEAT["VERSION"], FEAT["ARCH"], FEAT["CPUDESC"],
               FEAT["CPUID"]):
        c.string()
    elif bit == FEAT["NRCPUS"]:
        c.f("I", 2)
    elif bit in (FEAT["TOTAL_MEM"], FEAT["CLOCKID"]):
        c.f("Q")
    elif bit == FEAT["SAMPLE_TIME"]:
        c.f("Q", 2)
    elif bit == FEAT["CMDLINE"]:
        for _ in range(c.f("I")):
            c.string()
    elif bit == FEAT["PMU_MAPPINGS"]:
        for _ in range(c.f("I")):
            c.f("I")
            c.string()
    elif bit == FEAT["EVENT_DESC"]:
        nre, asz = c.f("I", 2)
        for _ in range(nre):
            c.need(asz)
            c.out += conv_attr(src, c.pos, asz)
            c.pos += asz
            nids = c.f("I")
            c.string()
            c.f("Q", nids) if nids else None
    elif bit == FEAT["BUILD_ID"]:
        while c.pos < c.end:
            _, _, rsize = struct.unpack_from("<IHH", src, c.pos)
            rend = c.pos + rsize
            c.f("I")
            c.f("H", 2)
            c.f("i")                               # pid
            c.raw(24)                              # build id (20) + size byte + padding
            c.raw(rend - c.pos)                    # file name
    else:
        return None
    if c.pos != c.end:
        raise Refused(f"feature {bit}: {c.end - c.pos} bytes left over")
    return bytes(c.out)


def convert(src):
    if src[:8] != MAGIC:
        raise Refused("not a little-endian PERFILE2 file")
    hsize, attr_size, a_off, a_size, d_off, d_size, et_off, et_size = struct.unpack_from("<8Q", src, 8)
    if hsize != HDR:
        raise Refused(f"header size {hsize}")
    feats = struct.unpack_from("<4Q", src, 72)
    out = bytearray(d_off)                         # header, attrs and ids keep their offsets
    # attrs with their ids
    attrs = []
    asz = attr_size - 16
    for i in range(a_size // attr_size):
        e = a_off + i * attr_size
        out[e:e + asz] = conv_attr(src, e, asz)
        ids_off, ids_size = struct.unpack_from("<QQ", src, e + asz)
        out[e + asz:e + attr_size] = struct.pack(">QQ", ids_off, ids_size)
        n = ids_size // 8
        ids = struct.unpack_from(f"<{n}Q", src, ids_off)
        out[ids_off:ids_off + 8 * n] = struct.pack(f">{n}Q", *ids)
        attrs.append(attr_info(src, e))
    a = attrs[0]
    for other in attrs[1:]:
        if (other["sample_type"], other["sample_id_all"]) != (a["sample_type"], a["sample_id_all"]):
            raise Refused("events with different sample_type")
    # the data section, record by record
    p, end, dropped = d_off, d_off + d_size, 0
    data = bytearray()
    while p < end:
        size = struct.unpack_from("<H", src, p + 6)[0]
        if size < 8 or p + size > end:
            raise Refused(f"a record of size {size} at byte {p}")
        rec = conv_record(src, p, a)
        if rec is None:
            dropped += 1
        else:
            data += rec
        p += size
    out += data
    # the feature sections we convert, after the data
    bits_out = [0, 0, 0, 0]
    secs = []
    k = 0
    tab_off = d_off + d_size
    for bit in range(256):
        if not (feats[bit // 64] >> (bit % 64)) & 1:
            continue
        off, size = struct.unpack_from("<QQ", src, tab_off + 16 * k)
        k += 1
        body = conv_feature(src, bit, off, size, asz)
        if body is not None:
            bits_out[bit // 64] |= 1 << (bit % 64)
            secs.append(body)
    new_tab = len(out)
    pos = new_tab + 16 * len(secs)
    tab = bytearray()
    for body in secs:
        tab += struct.pack(">QQ", pos, len(body))
        pos += len(body)
    out += tab
    for body in secs:
        out += body
    # the header
    out[0:8] = MAGIC[::-1]                         # the u64 magic, big-endian
    out[8:72] = struct.pack(">8Q", hsize, attr_size, a_off, a_size, d_off, len(data), et_off, et_size)
    out[72:104] = struct.pack(">4Q", *bits_out)
    return bytes(out), dropped


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1])
        return 2
    with open(sys.argv[1], "rb") as f:
        src = f.read()
    try:
        out, dropped = convert(src)
    except (Refused, struct.error) as e:
        print(f"swap_endian: {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    with open(sys.argv[2], "wb") as f:
        f.write(out)
    if dropped:
        print(f"swap_endian: dropped {dropped} records (EVENT_UPDATE of cpus)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

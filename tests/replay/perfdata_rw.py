# SPDX-License-Identifier: GPL-2.0-or-later
"""perfdata_rw: a perf.data file read into its parts and written back, for the tests that rewrite
recordings made here into the layouts of other perf versions and machines (test_replay_layouts.py)
or add records perf writes elsewhere (test_replay_ksymbol.py). The format as
/usr/include/linux/perf_event.h and perf's file header define it; a file this reader does not know
the layout of fails the test."""
import struct

from replaylib import fail

MAGIC = b"PERFILE2"
FILE_HEADER_SIZE = 104     # magic, size, attr_size, attrs/data/event_types sections, 4 u64 of bits
PIPE_HEADER_SIZE = 16      # magic, size
ATTR_SIZES = {0: 64, 1: 72, 2: 80, 3: 96, 4: 104, 5: 112, 6: 120, 7: 128, 8: 136}  # VER0..VER8
PERF_61_ATTR_SIZE = 128    # sizeof(struct perf_event_attr) in perf 6.1: it refuses larger ones
REC_MMAP, REC_SAMPLE = 1, 9
USER_TYPES = 64            # perf's own records (HEADER_ATTR ...) carry no sample_id trailer
HEADER_ATTR, HEADER_BUILD_ID, HEADER_FEATURE = 64, 67, 80
FEAT_BUILD_ID, FEAT_EVENT_DESC = 2, 12
# sample_type bits
S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD, S_STREAM_ID = (
    1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 9)
S_BRANCH_STACK, S_REGS_USER, S_STACK_USER, S_REGS_INTR, S_IDENTIFIER = (
    1 << 11, 1 << 12, 1 << 13, 1 << 18, 1 << 16)
# struct perf_event_attr: offsets of the fields the rewrite touches or must keep
A_TYPE, A_SIZE, A_CONFIG, A_SAMPLE_TYPE, A_FLAGS = 0, 4, 8, 24, 40
FLAG_SAMPLE_ID_ALL = 1 << 18
# the first byte past each field a sample's layout depends on, by the sample_type bit needing it
LAYOUT_FIELDS = {S_BRANCH_STACK: 80, S_REGS_USER: 96, S_STACK_USER: 96, S_REGS_INTR: 104}
NAME_ALIGN = 64            # perf pads header strings and build-id file names to this
MISC_BUILD_ID_SIZE = 1 << 15
PERF_TYPE_HARDWARE = 0
HYBRID_CORE_PMU, HYBRID_ATOM_PMU = 4, 10   # the sysfs types of Alder Lake's cpu_core and cpu_atom


def u16(b, o): return struct.unpack_from("<H", b, o)[0]
def u32(b, o): return struct.unpack_from("<I", b, o)[0]
def u64(b, o): return struct.unpack_from("<Q", b, o)[0]


def trailer_size(st):
    """Bytes of the sample_id trailer of a non-sample record, for sample_type st."""
    return 8 * sum(1 for bit in (S_TID, S_TIME, S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER) if st & bit)


class Recording:
    """A perf.data file as its parts: attrs [(attr bytes, [ids])], the data's records (bytes each),
    and the feature sections {bit: bytes}."""

    def __init__(self, attrs, records, features):
        self.attrs, self.records, self.features = attrs, records, features

    def copy(self):
        return Recording([(bytearray(a), list(i)) for a, i in self.attrs], list(self.records),
                         dict(self.features))

    def sample_type(self):
        return u64(self.attrs[0][0], A_SAMPLE_TYPE)

    def sample_id_all(self):
        return bool(u64(self.attrs[0][0], A_FLAGS) & FLAG_SAMPLE_ID_ALL)


def read_file(path):
    b = open(path, "rb").read()
    if b[:8] != MAGIC or u64(b, 8) != FILE_HEADER_SIZE:
        fail(f"{path}: not a perf.data file of the layout this test rewrites")
    attr_size, attrs_off, attrs_len = u64(b, 16), u64(b, 24), u64(b, 32)
    data_off, data_len = u64(b, 40), u64(b, 48)
    attrs = []
    for e in range(attrs_off, attrs_off + attrs_len, attr_size):
        a = bytearray(b[e:e + attr_size - 16])
        if u32(a, A_SIZE) != len(a):
            fail(f"{path}: an attr whose size field says {u32(a, A_SIZE)} in entries of {len(a)}")
        ids_off, ids_len = u64(b, e + attr_size - 16), u64(b, e + attr_size - 8)
        attrs.append((a, list(struct.unpack_from(f"<{ids_len // 8}Q", b, ids_off))))
    records, p = [], data_off
    while p < data_off + data_len:
        size = u16(b, p + 6)
        if size < 8:
            fail(f"{path}: a record of size {size} at {p}")
        records.append(b[p:p + size])
        p += size
    bits = sum(u64(b, 72 + 8 * i) << (64 * i) for i in range(4))
    features, k = {}, 0
    for bit in range(256):
        if bits >> bit & 1:
            off, size = struct.unpack_from("<QQ", b, data_off + data_len + 16 * k)
            features[bit] = b[off:off + size]
            k += 1
    return Recording(attrs, records, features)


def write_file(rec, path):
    """perf record's file layout: header, ids, attrs, data, the feature index, the features."""
    asz = len(rec.attrs[0][0])
    ids_off = FILE_HEADER_SIZE
    ids_blob = b"".join(struct.pack(f"<{len(i)}Q", *i) for _, i in rec.attrs)
    attrs_off = ids_off + len(ids_blob)
    entries, o = [], ids_off
    for a, i in rec.attrs:
        if len(a) != asz:
            fail("attrs of several sizes in one file")
        entries.append(bytes(a) + struct.pack("<QQ", o, 8 * len(i)))
        o += 8 * len(i)
    attrs_blob = b"".join(entries)
    data_off = attrs_off + len(attrs_blob)
    data = b"".join(rec.records)
    feats = sorted(rec.features)
    index_off = data_off + len(data)
    body_off = index_off + 16 * len(feats)
    index, bodies = b"", b""
    for bit in feats:
        index += struct.pack("<QQ", body_off + len(bodies), len(rec.features[bit]))
        bodies += rec.features[bit]
    bits = [0, 0, 0, 0]
    for bit in feats:
        bits[bit // 64] |= 1 << (bit % 64)
    header = struct.pack("<8sQQQQQQQQ4Q", MAGIC, FILE_HEADER_SIZE, asz + 16, attrs_off,
                         len(attrs_blob), data_off, len(data), 0, 0, *bits)
    with open(path, "wb") as f:
        f.write(header + ids_blob + attrs_blob + data + index + bodies)
    return path



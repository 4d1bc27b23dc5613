# SPDX-License-Identifier: GPL-2.0-or-later
"""The one comparison of perftop with perf report, for every test that compares the two.

It reads perf report --stdio (-n, -g none, --sort dso,sym, sym or srcline, --children or
--no-children, one section per event of a file of several; and, for what perf report cannot show,
the callchains of perf script; a test that holds perftop to both Self and Total reads the
--no-children rows out of one --children report: perf_reports, self_of) and perftop's -b --json
snapshots, matches rows by (dso basename, normalised symbol) and checks both ways:

  - every perf report row at or above MIN_SHARE percent is in perftop within the tolerance;
  - every perftop row at or above MIN_SHARE percent is in perf report within the tolerance;
  - a row that fails either check passes only when an entry of EXPLAINED (below: each with its
    reason) covers it; rows the tools name differently on purpose are paired by PAIRINGS (each
    with its reason); where perf report has several rows of one name and perftop one, its Self
    must be their sum and its Total lie between perf's largest and their sum;
  - the snapshot's sample count is perf report's (when it covers the whole recording);
  - a comparison that compared fewer rows than asked (min_rows) fails: a comparison of nothing
    passes nothing.

C++ rows (perf and perftop both print demangled names without their parameter lists; what is left
of a parameter list or an ABI tag is cut on both sides), inline rows ("f (inlined)") and [vdso] rows
are compared like any other: nothing is dropped. Unresolved rows (an address) are compared too:
both tools print an address in a binary as its offset in that binary, an address in no mapping as
itself.

The tolerance. Both tools read the same N samples, so on one file the two shares of a row should be
equal but for printing, and on the frame-pointer files of the suite they are (worst difference
0.00 points) but for what EXPLAINED lists. The bound is not zero for what the two may
legitimately attribute differently: perf script's callchains standing in for perf report on a
pipe-mode file, another DWARF unwinder and inline expander (tenths of a point on
test_unwind_replay's Python), another name of one address. The bound on such differences is the precision the profile itself has: a share p measured from N samples is
known to within its binomial standard error sqrt(p(1-p)/N), the scatter a second recording of the
same program would show. A difference smaller than SIGMAS of those changes nothing a reader of the
profile can conclude; a larger one is a real disagreement over which samples a row holds. N is
the sample count perf report shows for the section (the sum of its Samples column, exact), p the
larger of the two shares. To that is added what printing costs: perf prints 2 decimals (half a
unit: 0.005 points), perftop 4 (0.00005). The bound is small where it must be: a 1% row of 2000
samples has 0.67 points, a row missing altogether fails whatever its size.

Python 3 stdlib only. Imported as `from perfcompare import ...` (tests/lib is on sys.path, as for
perfprobe.py)."""
import math
import os
import re
import subprocess
import sys

sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))
from perfprobe import fail  # noqa: E402
from ptjson import snapshots  # noqa: E402,F401  (imported from here by the replay tests)

MIN_SHARE = 0.5     # percent: rows at or above it, on either side, are compared
SIGMAS = 3.0        # standard errors of the share allowed between the two tools
ROUNDING = 0.005 + 0.00005   # perf's 2 decimals, perftop's 4: half a printed unit each
MIN_ROWS = 5        # a comparison must compare at least this many rows unless the caller says


def tolerance(p, n):
    """Points allowed between the two shares of a row: SIGMAS binomial standard errors of share p
    (percent) measured over n samples, plus the rounding of the printed values."""
    q = min(max(p / 100.0, 0.0), 1.0)
    return SIGMAS * 100.0 * math.sqrt(q * (1.0 - q) / max(n, 1)) + ROUNDING


# ---- differences that are not perftop's errors ------------------------------------------------
# Each entry: which row it covers (regular expressions on the normalised dso and symbol, which key,
# and the side the row is missing from or larger on: "ours" = perftop has it or has more, "ref" =
# perf report has it or has more, "either"), only in comparisons that declare the context (a
# string the caller passes, e.g. "dwarf"; None = always), and why it is right.
class Explained:
    def __init__(self, reason, dso=".*", sym=".*", key=None, side="either", context=None,
                 duplicate=False, other=None):
        self.reason, self.dso, self.sym = reason, re.compile(dso), re.compile(sym)
        self.key, self.side, self.context, self.duplicate = key, side, context, duplicate
        self.other = other   # f(dso, sym, the other side's symbols of that dso): a condition more

    def covers(self, dso, sym, key, side, contexts, duplicate, others=()):
        return ((self.context is None or self.context in contexts)
                and (not self.duplicate or duplicate)
                and (self.other is None or self.other(dso, sym, others))
                and (self.key is None or self.key == key)
                and (self.side == "either" or self.side == side)
                and self.dso.fullmatch(dso) is not None and self.sym.fullmatch(sym) is not None)


def _glibc_public(name):
    """The public name of a glibc internal alias: glibc names the hidden alias of a function
    __GI_NAME and its implementation __libc_NAME or __NAME (__GI___libc_malloc, __libc_malloc:
    malloc; __GI___clock_gettime, __clock_gettime: clock_gettime)."""
    if name.startswith("__GI_"):
        name = name[len("__GI_"):]
    for prefix in ("__libc_", "__"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def _prefixed(a, b):
    """a and b differ, and one is the other with something after it (builtin_sum and
    builtin_sum.lto_priv.0, __libc_start_main and __libc_start_main_impl), or both are names of
    one glibc function (__GI___libc_malloc and malloc)."""
    return a != b and (b.startswith(a) or a.startswith(b) or _glibc_public(a) == _glibc_public(b))


_NAMED_DSO = r"(?!\[unknown\]$).*"
EXPLAINED = [
    Explained("perf 6.1 with --children names an address met in a callchain, in a binary without a "
              "symbol there, by its absolute address (callchain entries do not go through map_ip), "
              "beside the sampled address's row by its offset in the binary: one place is two rows "
              "in perf report, one in perftop (by offset, as perf's Self rows; tests/replay/"
              "test_replay_stripped.py checks those Totals against perf's absolute rows)",
              dso=_NAMED_DSO, sym=r"0x[0-9a-f]{16}", key="total", side="ref"),
    Explained("the other half of the same perf 6.1 split: perf's row by offset carries only the "
              "samples taken there (its Self), perftop's the callchains through it too",
              dso=_NAMED_DSO, sym=r"0x[0-9a-f]{16}", key="total", side="ours"),
    Explained("perf 6.1 adds an inline frame named after the DWARF function of an address "
              "whenever that name is not the ELF symbol's it named the address by, where nothing "
              "is inlined: an alias (__libc_start_main_impl under __libc_start_main, glibc's "
              "__GI___libc_malloc under malloc), an LTO or "
              "argument-clinic clone (builtin_sum under builtin_sum.lto_priv.0, builtin_sum_impl "
              "under builtin_sum); perftop takes inline frames from DWARF's inlined subroutines "
              "only. Covered only where perftop has a function of that dso whose name is the "
              "inline frame's with a suffix (.lto_priv.0, _impl) or the other way round, or its "
              "public name by glibc's alias prefixes (__GI_, __libc_)",
              sym=r".* \(inlined\)", key="total", side="ref", context="dwarf",
              other=lambda dso, sym, others: any(
                  not o.endswith(" (inlined)") and _prefixed(sym[:-len(" (inlined)")], o)
                  for o in others)),
    Explained("the other side of the same perf 6.1 naming: perftop's row of the ELF symbol "
              "(__libc_start_main, builtin_sum.lto_priv.0) carries the Total perf gives to its "
              "inline frame of the DWARF name. Covered only where perf has such an inline frame in "
              "that dso",
              sym=r"(?!.* \(inlined\)$).*", key="total", side="ours", context="dwarf",
              other=lambda dso, sym, others: any(
                  o.endswith(" (inlined)") and _prefixed(o[:-len(" (inlined)")], sym)
                  for o in others)),
    Explained("perf 6.1's --children gives the kernel part of an LBR call stack's chain (the "
              "callchain's addresses before PERF_CONTEXT_USER) rows of [unknown] user addresses, "
              "where its own --no-children call graph and perf script name the same entries in "
              "the kernel; perftop names them there (the test checks them against the chains it "
              "wrote)", dso=r"\[unknown\]", sym=r"0xffff[0-9a-f]{12}", key="total", side="ref",
              context="lbr"),
    Explained("the other half of the same perf 6.1 --children naming: perftop's kernel rows carry "
              "the Total of the chains through them, perf's only the samples taken there",
              dso=r"\[kernel\.kallsyms\]", key="total", side="ours", context="lbr"),
    Explained("a 0 in a callchain is where the kernel's frame-pointer walk ended (the outermost "
              "frame's saved return address, 0 in a thread's first frame), no frame: perf 6.1 "
              "makes it a root row of every chain that has it, perftop none",
              dso=r"\[unknown\]", sym=r"0x0{16}", key="total", side="ref"),
]


# Rows the two tools name differently on purpose, paired when each is alone on its side.
class Pairing:
    def __init__(self, reason, pairs):
        self.reason, self.pairs = reason, pairs


_kallsyms = None


def kernel_aliases(name):
    """The names /proc/kallsyms has at the address of name (itself included)."""
    global _kallsyms
    if _kallsyms is None:
        by_addr, by_name = {}, {}
        try:
            with open("/proc/kallsyms") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 3 and parts[0].strip("0"):
                        by_addr.setdefault(parts[0], set()).add(parts[2])
                        by_name.setdefault(parts[2], parts[0])
        except OSError:
            pass
        _kallsyms = (by_addr, by_name)
    by_addr, by_name = _kallsyms
    return by_addr.get(by_name.get(name, ""), {name})


PAIRINGS = [
    Pairing("another name of the kernel's at the same address (__x86_indirect_thunk_rax and "
            "__pi___x86_indirect_thunk_rax): which one names it is a choice",
            lambda r, o: r[0] == o[0] == "[kernel.kallsyms]" and o[1] in kernel_aliases(r[1])),
    Pairing("a uprobe's out-of-line slot ([uprobes], the kernel's page of copied instructions, no "
            "file): perf prints its offset in the page, perftop the address",
            lambda r, o: r[0] == o[0] == "[uprobes]" and r[1].startswith("0x") and
            o[1].startswith("0x") and int(o[1], 16) & 0xfff == int(r[1], 16)),
    Pairing("perf 6.1 names a PLT entry whose relocation is IRELATIVE (an ifunc: no symbol, the "
            "addend is the resolver) with an empty name, perftop after the ifunc (strspn@plt)",
            lambda r, o: r[0] == o[0] and r[1] == "@plt" and o[1].endswith("@plt")),
    Pairing("perf 6.1 does not name the entries of .plt.got (the stubs of functions whose address "
            "is also taken: jmp *GOT slot of a GLOB_DAT relocation) and prints the address; "
            "perftop names them NAME@plt, and binutils' objdump names the same address so",
            lambda r, o: r[0] == o[0] and o[1].endswith("@plt") and
            re.fullmatch(r"0x[0-9a-f]+", r[1]) is not None and
            objdump_plt_name(r[0], int(r[1], 16)) == o[1]),
]

GARBAGE_REASON = ("perf prints each frame-pointer chain entry in no mapping (2^56 or more, or no "
                  "code there: the kernel's walk read a stack canary, a string or a pointer to "
                  "data as a return address, where a binary without frame pointers left rbp as "
                  "data) as a row of its own; perftop ends the chain at the first with one "
                  "[unmapped address] frame")


UNMAPPED_DWARF = Explained("perf 6.1's DWARF unwinder ends a chain whose next return address is in "
                           "no mapping without a frame; perftop ends it with one [unmapped "
                           "address] frame (a few chains: within the binomial error of none)",
                           dso=r"\[unknown\]", sym=r"\[unmapped address\]", side="ours",
                           context="dwarf")


def _garbage_entry(key):
    """A perf row of a chain entry in no mapping (its shared object [unknown], its symbol the
    address; 0, where the kernel's walk ended, is explained apart): a user-space return address
    there is data read as one (2^56 or more, the kernel half included, no user code can be at)."""
    return key[0] == "[unknown]" and len(key) > 1 and \
        re.fullmatch(r"0x[0-9a-f]+", key[1]) is not None and int(key[1], 16) != 0


# Full paths of the dsos, by the base name rows are compared by (for the checks that read the
# binary itself): neither tool's rows carry them, perf report -v on the recording being compared
# does (its rows name each dso by its path); read once per recording.
_dso_paths = {}
_objdump_cache = {}
_recording = None        # the perf.data of the section compare() is at, when known
_paths_read = set()


def _dso_path(dso):
    if dso not in _dso_paths and _recording and _recording not in _paths_read:
        _paths_read.add(_recording)
        out = subprocess.run(["perf", "report", "-i", _recording, "--stdio", "-v", "--sort", "dso",
                              "--no-children", "-g", "none", "--percent-limit", "0"],
                             capture_output=True, text=True, timeout=600).stdout
        for line in out.splitlines():
            m = re.match(r"\s*[\d.]+%\s+(/\S+)", line)
            if m:
                _dso_paths.setdefault(os.path.basename(m.group(1)), m.group(1))
    return _dso_paths.get(dso)


def objdump_plt_name(dso, addr):
    """The label binutils' objdump gives the .plt.got entry at file address addr of the dso
    (by base name), or None."""
    path = _dso_path(dso)
    if not path or not os.path.isfile(path):
        return None
    if (path, addr) not in _objdump_cache:
        try:
            out = subprocess.run(["objdump", "-d", "-j", ".plt.got", f"--start-address={addr:#x}",
                                  f"--stop-address={addr + 1:#x}", path], capture_output=True,
                                 text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        m = re.search(r"^0*%x <([^>+]+@plt)>:" % addr, out, re.M)
        _objdump_cache[(path, addr)] = m.group(1) if m else None
    return _objdump_cache[(path, addr)]


# ---- names --------------------------------------------------------------------------------------
def dso_key(dso):
    """The dso as compared: its base name ([JIT] maps by any name are one: perf says "[JIT] tid N"
    or the perf-N.map file)."""
    d = (dso or "").strip()
    if d.startswith("[JIT]") or re.fullmatch(r"perf-\d+\.map", os.path.basename(d)):
        return "[JIT]"
    return d if d.startswith("[") else os.path.basename(d)


def sym_key(sym):
    """The symbol as compared. A symbol version is not part of the name (libc's
    clock_nanosleep@GLIBC_2.2.5 and clock_nanosleep@@GLIBC_2.17 are one address that perf names by
    either). An address is one spelling of its number. A C++ parameter list at the end, and what follows it (const, ABI tags), is cut: perf
    prints names without it, a demangler asked for it gives it. " (inlined)" stays: an inline row
    is a row of its own."""
    s = (sym or "").strip()
    if not s.endswith("@plt"):   # a PLT stub's name is not a version
        s = re.sub(r"@@?[A-Za-z_][\w.]*$", "", s)
    if re.fullmatch(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{16}", s):
        # an address: perf prints 0x0000000000001234, or (a callchain entry in no mapping, with
        # --children) 0000000000001234; one number
        return f"0x{int(s, 16):016x}"
    inl = s.endswith(" (inlined)")
    if inl:
        s = s[:-len(" (inlined)")]
    s = re.sub(r"(\s*\[abi:[^\]]*\])+$", "", s)
    s = re.sub(r"\s+(const|volatile|&&|&)$", "", s)
    if s.endswith(")") and not s.startswith("("):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                # operator() keeps its own pair
                if i > 0 and not s[:i].endswith("operator"):
                    s = s[:i].rstrip()
                break
    return s + (" (inlined)" if inl else "")


# ---- perf report ------------------------------------------------------------------------------------
class Section:
    """One event's rows of a perf report: rows [(key tuple, self%, total% or None, samples)], the
    sample count N (exact: the sum of the Samples column) and the event count (total period)."""

    def __init__(self, event):
        self.event, self.rows, self.samples, self.event_count = event, [], 0, None
        self.path = None   # the recording, when read by perf_report

    def __repr__(self):
        return f"<{self.event}: {self.samples} samples, {len(self.rows)} rows>"


_ROW = re.compile(r"\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(\d+)\s+(\S.*?)\s+\[([.kgHu])\]\s+(.*?)\s*$")
_ROW_SYM = re.compile(r"\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(\d+)\s+\[([.kgHu])\]\s+(.*?)\s*$")
_ROW_SRCLINE = re.compile(r"\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(\d+)\s+(\S.*?)\s*$")


COMM_DSO_SEP = "\x1f"  # perf report -t for --sort comm,dso: a comm may hold blanks, none holds this


def parse_report(text, sort="dso,sym"):
    """perf report --stdio -n text -> {event: Section}. With --children a row has two percentages
    (Total, then Self); without, one (Self). sort: "dso,sym", "sym", "srcline", or "comm,dso"
    (text of perf report -t COMM_DSO_SEP, as perf_report runs it: key (comm, dso)), or "cgroup,sym"
    (the same way: key (cgroup path, symbol))."""
    out, cur = {}, None
    for line in text.splitlines():
        if sort == "cgroup,sym" and not line.startswith("#") and COMM_DSO_SEP in line:
            f = line.split(COMM_DSO_SEP)
            if cur is None:
                cur = out[""] = Section("")
            if len(f) == 4:
                sym = re.sub(r"^\[.\] ", "", f[3].strip())
                cur.rows.append(((f[2].strip(), sym_key(sym)), float(f[0].strip().rstrip("%")),
                                 None, int(f[1])))
                cur.samples += int(f[1])
            continue
        if sort == "comm,dso" and not line.startswith("#") and COMM_DSO_SEP in line:
            f = line.split(COMM_DSO_SEP)
            if cur is None:
                cur = out[""] = Section("")
            if len(f) == 4:
                cur.rows.append(((f[2].rstrip(), dso_key(f[3])), float(f[0].strip().rstrip("%")),
                                 None, int(f[1])))
                cur.samples += int(f[1])
            continue
        m = re.match(r"# Samples: \S+\s+of events? '(.*)'", line)
        if m:
            cur = out[m.group(1)] = Section(m.group(1))
            continue
        m = re.match(r"# Event count \(approx\.\): (\d+)", line)
        if m and cur is not None:
            cur.event_count = int(m.group(1))
            continue
        if line.startswith("#") or not line.strip():
            continue
        if sort == "srcline":
            m = _ROW_SRCLINE.match(line)
            if not m:
                continue
            p1, p2, n, src = m.groups()
            key = (src.strip(),)
        elif sort == "sym":
            m = _ROW_SYM.match(line)
            if not m:
                continue
            p1, p2, n, _, sym = m.groups()
            key = ("", sym_key(sym))
        else:
            m = _ROW.match(line)
            if not m:
                continue
            p1, p2, n, dso, _, sym = m.groups()
            key = (dso_key(dso) if sort == "dso,sym" else "", sym_key(sym))
        if cur is None:
            cur = out[""] = Section("")
        total, self_ = (float(p1), float(p2)) if p2 is not None else (None, float(p1))
        cur.rows.append((key, self_, total, int(n)))
        cur.samples += int(n)
    return out


def perf_report(path, children, sort="dso,sym", env=None, extra=(), timeout=600):
    """perf report -i PATH on every row (--percent-limit 0, -n for the exact sample count):
    {event: Section}. The test fails when perf report does."""
    args = ["perf", "report", "-i", path, "--stdio", "-n", "-g", "none", "--percent-limit", "0",
            "--sort", sort, "--children" if children else "--no-children"] + list(extra)
    if sort in ("comm,dso", "cgroup,sym"):
        args += ["-t", COMM_DSO_SEP]
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    out = parse_report(p.stdout, sort)
    if not out:
        fail(f"{' '.join(args)}: no section in its output: {p.stdout[:300]!r}")
    for sec in out.values():
        sec.path = path
    return out


def self_of(sections):
    """The --no-children report within a --children one: {event: Section} of the rows that hold
    samples of their own (the Samples column of a --children report is each row's Self count, its
    second percentage its Self%), Total dropped. perf report --no-children prints exactly these
    rows, shares and counts (every entry there is a sample's own); a test that holds perftop to
    both reads one perf report instead of two, which on a DWARF recording is seconds each."""
    out = {}
    for event, sec in sections.items():
        own = Section(event)
        own.rows = [(key, self_, None, n) for key, self_, _, n in sec.rows if n > 0]
        own.samples, own.event_count, own.path = sec.samples, sec.event_count, sec.path
        out[event] = own
    return out


def perf_reports(path, **kw):
    """{False: the --no-children sections, True: the --children ones} of one perf report
    --children run (self_of). A pipe-mode file, whose report perf 6.1 prints with Self alone
    whatever is asked, gives the same sections both ways."""
    total = perf_report(path, True, **kw)
    return {False: self_of(total), True: total}


def report_sections(path, **kw):
    """perf_reports of a file of one event: {False: Section, True: Section}."""
    both = perf_reports(path, **kw)
    if len(both[True]) != 1:
        fail(f"perf report -i {path}: {len(both[True])} events ({sorted(both[True])}), want one")
    return {c: next(iter(secs.values())) for c, secs in both.items()}


def report_section(path, children, **kw):
    """The one section of a file of one event."""
    secs = perf_report(path, children, **kw)
    if len(secs) != 1:
        fail(f"perf report -i {path}: {len(secs)} events ({sorted(secs)}), want one")
    return next(iter(secs.values()))


def script_section(path, env=None, timeout=600):
    """The --children rows of a recording, from perf script's callchains (for what perf report
    cannot show: perf 6.1's report has no --children on a pipe-mode file). Each sample's period
    goes to Self of its first frame and to Total of each distinct (dso, symbol) of its chain, as
    perf report counts them; a frame perf script cannot name is its address, which perf script
    prints as perf report does (the offset in its binary, or the address itself in no mapping)."""
    args = ["perf", "script", "-i", path, "-F", "period,ip,sym,dso"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    self_w, tot_w, nsamp, total = {}, {}, {}, 0
    for block in p.stdout.split("\n\n"):
        lines = [l for l in block.splitlines() if l.strip()]
        if not lines or not lines[0].strip().isdigit():
            continue
        period = int(lines[0].strip())
        keys = []
        for l in lines[1:]:
            m = re.match(r"\s*([0-9a-f]+) (.*) \((.*)\)\s*$", l)
            if not m:
                continue
            ip, sym, dso = m.groups()
            sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
            keys.append((dso_key(dso), sym_key("0x" + ip if sym == "[unknown]" else sym)))
        if not keys:
            continue
        total += period
        self_w[keys[0]] = self_w.get(keys[0], 0) + period
        nsamp[keys[0]] = nsamp.get(keys[0], 0) + 1
        for k in set(keys):
            tot_w[k] = tot_w.get(k, 0) + period
    out = Section("")
    out.event_count = total
    for k, w in tot_w.items():
        out.rows.append((k, 100.0 * self_w.get(k, 0) / max(total, 1), 100.0 * w / max(total, 1),
                         nsamp.get(k, 0)))
        out.samples += nsamp.get(k, 0)
    return out


def merge_sections(sections):
    """Sections of several files of one session, as one: each row's period is its share of its
    file's event count; shares over the sum of the event counts."""
    out = Section(sections[0].event if sections else "")
    per = {}
    total = sum(s.event_count or 0 for s in sections)
    for s in sections:
        out.samples += s.samples
        for key, self_, tot, n in s.rows:
            r = per.setdefault(key, [0.0, None, 0])
            r[0] += self_ * (s.event_count or 0)
            if tot is not None:
                r[1] = (r[1] or 0.0) + tot * (s.event_count or 0)
            r[2] += n
    out.event_count = total
    for key, (self_, tot, n) in per.items():
        out.rows.append((key, self_ / max(total, 1), None if tot is None else tot / max(total, 1), n))
    return out


# ---- perftop's snapshots ----------------------------------------------------------------------
def snapshot_rows(snap, sort="dso,sym"):
    """[(key, self%, total%)] of a snapshot's rows, keyed as perf report's."""
    out = []
    for r in snap.get("rows", []):
        if sort == "srcline":
            key = (str(r.get("srcline", "")),)
        elif sort == "comm,dso":
            key = (str(r.get("comm", "")), dso_key(str(r.get("dso", ""))))
        elif sort == "cgroup,sym":
            key = (str(r.get("cgroup", "")), sym_key(str(r.get("sym", ""))))
        else:
            key = (dso_key(str(r.get("dso", ""))) if sort == "dso,sym" else "",
                   sym_key(str(r.get("sym", ""))))
        out.append((key, float(r.get("self", 0.0)), float(r.get("total", 0.0))))
    return out


# ---- the comparison ---------------------------------------------------------------------------------
def _stands_for(one, many, key, most=None):
    """What several rows (shares) of one side amount to against the other side's one row of one:
    their sum for Self; for Total, one itself when it lies between their largest and their sum
    (rows that overlap where a sample passes two of them; most: the sum when the printed one
    understates it), else the nearer bound."""
    if key == "self":
        return sum(many)
    return min(max(one, max(many)), sum(many) if most is None else most)


def _true_sum_at_most(shares, section):
    """The most that printed rows' true shares can add up to. perf prints each share to two
    decimals, so each may be up to half a unit more than printed; over the hundreds of one-sample
    rows of a chain's garbage entries that is points. Where every sample weighs one (the event
    count is the sample count: a tracepoint's period of 1) and a sample is more than a printed
    unit (N < 10000), each row's sample count is its share's nearest multiple of 1/N: exact."""
    n = getattr(section, "samples", 0) or 0
    if 0 < n < 10000 and getattr(section, "event_count", None) == n:
        return sum(round(p * n / 100.0) for p in shares) * 100.0 / n
    return sum(shares) + 0.005 * len(shares)


def compare(snap, section, key="self", sort="dso,sym", min_rows=MIN_ROWS, contexts=(),
            samples=None, whole=True, points=None):
    """perftop's snapshot against perf report's section on key ('self' or 'total'; 'total' needs a
    --children report). samples: N when the section's own count is not the right one; whole: the
    snapshot covers the whole recording, so its sample count must be perf report's; points: a
    fixed tolerance in points instead of the binomial one (where both tools count the very same
    samples into the same rows, as on --sort comm,dso).
    Returns (ok, text)."""
    global _recording
    _recording = getattr(section, "path", None)
    n = samples if samples is not None else section.samples
    if key == "total" and any(r[2] is None for r in section.rows):
        return False, "total: the reference is a --no-children report"
    problems = []
    if whole and samples is None and snap.get("samples") != section.samples:
        problems.append(f"perftop counts {snap.get('samples')} samples, perf report {section.samples}")
    col = 1 if key == "self" else 2
    ref, ours = {}, {}
    for r in section.rows:
        ref.setdefault(r[0], []).append(r[col])
    for r in snapshot_rows(snap, sort):
        ours.setdefault(r[0], []).append(r[col])
    # Rows of one name on a side (C++ overloads, static functions of one name in two files) are
    # matched in order of size.
    for v in list(ref.values()) + list(ours.values()):
        v.sort(reverse=True)
    pairs, lone_ref, lone_ours = [], [], []
    for k in sorted(set(ref) | set(ours)):
        a, b = ref.get(k, []), ours.get(k, [])
        if 1 in (len(a), len(b)) and max(len(a), len(b)) > 1:
            # Several rows of one name on one side, one on the other. perf keeps several where
            # its unwinder made several symbol instances (a --call-graph dwarf recording: an
            # inline frame per call site) or a name is several static functions (a static inline
            # Py_DECREF of an -O0 build, once in each file that calls it); perftop keeps a row per
            # inline instance where one function is inlined at two depths of one chain (Rust's
            # std::panic::catch_unwind in lang_start and again in lang_start_internal). The one
            # row's Self is the others' sum; its Total lies between their largest and their sum
            # (they overlap where one sample passes two of them).
            many, one, whose = (a, b[0], "perf's") if len(a) > 1 else (b, a[0], "perftop's")
            stands = _stands_for(one, many, key)
            note = (f" (the sum of {whose} {len(many)} rows of it)" if key == "self" else
                    f" ({whose} {len(many)} rows of it: {max(many):.2f}..{sum(many):.2f}%)")
            pairs.append((k, stands, one, note) if many is a else (k, one, stands, note))
            continue
        for i in range(max(len(a), len(b))):
            if i < len(a) and i < len(b):
                pairs.append((k, a[i], b[i], ""))
            elif i < len(a):
                lone_ref.append((k, a[i]))
            else:
                lone_ours.append((k, b[i]))
    # A row one side names otherwise (PAIRINGS: each with its reason) is its counterpart there.
    # perf's rows of chain entries in no mapping against perftop's one [unmapped address], where
    # such a chain ends: a sample's chain is cut at its first such entry, so perftop's share lies
    # between perf's largest of them and their sum.
    garbage = [r for r in lone_ref if _garbage_entry(r[0])]
    unmapped = [o for o in lone_ours if o[0] == ("[unknown]", "[unmapped address]")]
    if key == "total" and len(unmapped) == 1:
        # An address in no mapping that is also a sample's own ip (a file read in file order,
        # where a process's samples come before its MMAPs): both tools show it as a row; perf's
        # Total adds the samples that pass it as a caller, which perftop's chain cut gives to its
        # [unmapped address]. Its Self is the part both must show; the rest is a garbage share.
        self_of = {r[0]: r[1] for r in section.rows}
        for i, (k, pr, po, note) in enumerate(pairs):
            if not note and _garbage_entry(k) and len(ref[k]) == 1 and \
                    pr - self_of[k] >= 0.005:
                garbage.append((k, pr - self_of[k]))
                pairs[i] = (k, self_of[k], po, " (its Self: the samples that pass it as a caller"
                            " are in perftop's [unmapped address])")
    if garbage and len(unmapped) == 1:
        o = unmapped[0]
        shares = [r[1] for r in garbage]
        lone_ref = [r for r in lone_ref if r not in garbage]
        lone_ours.remove(o)
        most = _true_sum_at_most(shares, section)
        pairs.append((o[0], _stands_for(o[1], shares, "total", most), o[1],
                      f" (perf's {len(garbage)} rows of entries in no mapping: "
                      f"{max(shares):.2f}..{most:.2f}%: {GARBAGE_REASON})"))
    # With DWARF, perf 6.1's unwinder ends a chain at a return address in no mapping without a
    # frame, where perftop's ends it with one [unmapped address]: a few such chains (their share
    # within the binomial error of none at this count; more is a fault of perftop's unwinder, and
    # fails) have no row on perf's side.
    early = []
    if not garbage and len(unmapped) == 1 and "dwarf" in contexts and \
            unmapped[0][1] <= tolerance(unmapped[0][1], n):
        o = unmapped[0]
        lone_ours.remove(o)
        early.append((f"[unmapped address] ([unknown]): perftop {o[1]:.2f}%, not in perf report",
                      UNMAPPED_DWARF))
    # The closest pairs first: of perf's rows that could pair with one of perftop's, the one whose
    # share is nearest (perf's two garbage rows of 99.50% and 0.25% against perftop's one
    # [unmapped address] of 99.75%: the 99.50% one).
    for rule in PAIRINGS:
        cands = sorted(((abs(o[1] - r[1]), i, j) for i, r in enumerate(lone_ref)
                        for j, o in enumerate(lone_ours) if rule.pairs(r[0], o[0])))
        used_r, used_o = set(), set()
        for _, i, j in cands:
            if i in used_r or j in used_o:
                continue
            used_r.add(i)
            used_o.add(j)
            r, o = lone_ref[i], lone_ours[j]
            pairs.append((r[0], r[1], o[1], f" (perftop's {o[0][-1]}: {rule.reason})"))
        lone_ref = [r for i, r in enumerate(lone_ref) if i not in used_r]
        lone_ours = [o for j, o in enumerate(lone_ours) if j not in used_o]
    pairs += [(k, v, None, "") for k, v in lone_ref] + [(k, None, v, "") for k, v in lone_ours]
    compared, explained, worst, notes = 0, early, 0.0, []
    for k, pr, po, note in pairs:
        if max(pr or 0.0, po or 0.0) < MIN_SHARE:
            continue
        tol = points if points is not None else tolerance(max(pr or 0.0, po or 0.0), n)
        name = f"{k[-1]} ({k[0]})" if len(k) > 1 else k[0]
        if pr is None or po is None:
            side = "ours" if pr is None else "ref"
            msg = (f"{name}: perftop {po:.2f}%, not in perf report" if pr is None else
                   f"{name}: perf report {pr:.2f}%, not in perftop")
        else:
            d = abs(pr - po)
            if d <= tol:
                compared += 1
                worst = max(worst, d)
                if note:
                    notes.append(name + note)
                continue
            side = "ours" if po > pr else "ref"
            msg = f"{name}{note}: perftop {po:.2f}%, perf report {pr:.2f}% (tolerance {tol:.2f})"
        dup = k in ref and k in ours   # a row of a name the other side has fewer rows of
        others = {o[-1] for o in (ours if side == "ref" else ref) if o[0] == k[0]}
        why = next((e for e in EXPLAINED if e.covers(k[0], k[-1], key, side, contexts, dup, others)),
                   None)
        if why is not None:
            explained.append((msg, why))
        else:
            problems.append(msg)
    text = (f"{key}: {compared} rows of {MIN_SHARE}% or more equal within " +
            (f"{points:g} points" if points is not None else f"{SIGMAS:g} sigma") +
            f" of {n} samples (worst {worst:.2f} points)")
    if notes:
        text += "; paired: " + "; ".join(notes[:4])
    if compared < min_rows:
        problems.append(f"only {compared} rows compared, want at least {min_rows}")
    if problems:
        text += "; FAILED: " + "; ".join(problems[:8])
    if explained:
        reasons = []
        for _, why in explained:
            if why not in reasons:
                reasons.append(why)
        text += (f"; {len(explained)} explained: " +
                 "; ".join(f"{msg} [{reasons.index(why) + 1}]" for msg, why in explained[:4]) +
                 "".join(f" [{i + 1}] {why.reason}." for i, why in enumerate(reasons)))
    return not problems, text


def check(what, snap, section, key="self", **kw):
    """compare(), printed; the test fails when it does."""
    ok, text = compare(snap, section, key, **kw)
    print(f"{what}: {text}")
    if not ok:
        fail(f"{what}: {text}")
    return text

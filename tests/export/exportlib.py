# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers of the export tests: the real readers of the three formats.

- pprof: pprofcheck.go, run with pprof's own Go package (Debian golang-github-google-pprof-dev
  under /usr/share/gocode), which parses the file and runs CheckValid; and `go tool pprof -top`.
- speedscope: the JSON schema speedscope publishes, from its npm package (the Makefile installs
  it with npm -g), checked with Python's jsonschema (Debian python3-jsonschema).
- folded: parsed here, as flamegraph.pl reads it (the count after the last space)."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from perfprobe import fail, need_tool, perf_script  # noqa: F401,E402

HERE = os.path.dirname(os.path.abspath(__file__))


def go_env(tmp):
    env = dict(os.environ)
    env.update(GOPATH="/usr/share/gocode", GO111MODULE="off", GOCACHE=os.path.join(tmp, "gocache"),
               GOFLAGS="", HOME=tmp)
    return env


def pprof_check(tmp, *paths):
    """{path: pprofcheck.go's summary}; fails on any Parse or CheckValid error."""
    need_tool("go", "golang-go (the Makefile's PACKAGES)")
    if not os.path.isdir("/usr/share/gocode/src/github.com/google/pprof/profile"):
        fail("pprof's Go package is missing: apt-get install golang-github-google-pprof-dev "
             "(the Makefile's PACKAGES)")
    p = subprocess.run(["go", "run", os.path.join(HERE, "pprofcheck.go")] + list(paths),
                       capture_output=True, text=True, timeout=300, env=go_env(tmp))
    if p.returncode != 0:
        fail(f"pprofcheck.go: {p.stderr.strip()[:500]}")
    out = json.loads(p.stdout)
    for path, r in out.items():
        if r.get("error"):
            fail(f"pprof rejects {path}: {r['error']}")
    return out


def pprof_top(tmp, path, sample_index=None):
    """`go tool pprof -top`'s rows: {function: flat%}."""
    args = ["go", "tool", "pprof", "-top", "-nodecount=1000", "-nodefraction=0", "-edgefraction=0"]
    if sample_index:
        args.append(f"-sample_index={sample_index}")
    p = subprocess.run(args + [path], capture_output=True, text=True, timeout=300, env=go_env(tmp))
    if p.returncode != 0:
        fail(f"go tool pprof -top {path}: {p.stderr.strip()[:300]}")
    rows = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+[\d.]+%\s+(.*)$", line)
        if m:
            rows[m.group(2).strip()] = rows.get(m.group(2).strip(), 0.0) + float(m.group(1))
    if not rows:
        fail(f"go tool pprof -top {path} printed no rows: {p.stdout[:300]}")
    return rows


def speedscope_schema():
    need_tool("npm", "npm (the speedscope schema comes from its npm package)")
    root = subprocess.run(["npm", "root", "-g"], capture_output=True, text=True).stdout.strip()
    path = os.path.join(root, "speedscope", "dist", "release", "file-format-schema.json")
    if not os.path.exists(path):
        fail(f"no {path}: npm install -g speedscope (the Makefile's deps do)")
    with open(path) as f:
        return json.load(f)


def speedscope_check(path):
    """The file, validated against speedscope's schema."""
    try:
        import jsonschema
    except ImportError:
        fail("python3-jsonschema is missing (the Makefile's PACKAGES)")
    with open(path) as f:
        doc = json.load(f)
    try:
        jsonschema.validate(doc, speedscope_schema())
    except jsonschema.ValidationError as e:
        fail(f"{path} does not validate against speedscope's schema: {e.message}")
    return doc


def folded_read(path):
    """{stack text: count}, as flamegraph.pl splits a line (the count after the last space)."""
    out = {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            stack, sep, count = line.rpartition(" ")
            if not sep or not count.isdigit() or not stack:
                fail(f"{path}:{no}: not 'stack count': {line[:200]}")
            if stack in out:
                fail(f"{path}:{no}: the stack is on two lines: {stack[:200]}")
            out[stack] = int(count)
    return out


def perf_script_folded(data):
    """perf script's samples collapsed here: {"comm;root;...;leaf": samples} with the symbol
    names perf prints (the version suffixes perf keeps, offsets cut)."""
    out, comm, frames = {}, None, []

    def flush():
        if comm is not None:
            key = ";".join([comm] + list(reversed(frames)))
            out[key] = out.get(key, 0) + 1

    for line in perf_script(data, "comm,ip,sym").splitlines():
        if not line.strip():
            flush()
            comm, frames = None, []
        elif not line.startswith((" ", "\t")):
            flush()
            comm, frames = line.strip(), []
        else:
            parts = line.split(None, 1)
            sym = parts[1] if len(parts) > 1 else "[unknown]"
            frames.append(re.sub(r"\+0x[0-9a-f]+$", "", sym.strip()))
    flush()
    return out


def perf_script_leaves(data):
    """{tid: [leaf symbol of each sample, in perf script's (time) order]}."""
    out, tid, first = {}, None, False
    for line in perf_script(data, "tid,ip,sym").splitlines():
        if not line.strip():
            tid = None
        elif not line.startswith("\t"):
            tid, first = int(line.split()[0]), True
        elif tid is not None and first:
            parts = line.split(None, 1)
            out.setdefault(tid, []).append(re.sub(r"\+0x[0-9a-f]+$", "", parts[1].strip())
                                           if len(parts) > 1 else "[unknown]")
            first = False
    return out


def speedscope_leaves(doc):
    """{tid: [leaf frame name of each sample, in the file's order]} of a speedscope file whose
    profiles are named "comm (pid P, tid T)"."""
    frames = doc["shared"]["frames"]
    out = {}
    for p in doc["profiles"]:
        m = re.search(r"tid (\d+)\)", p["name"])
        if not m:
            fail(f"speedscope profile name {p['name']!r} has no tid")
        out[int(m.group(1))] = [frames[s[-1]]["name"] if s else "" for s in p["samples"]]
    return out


def leaf_counts(folded):
    """{leaf function: count} of a folded dict."""
    out = {}
    for stack, n in folded.items():
        leaf = stack.rsplit(";", 1)[-1]
        out[leaf] = out.get(leaf, 0) + n
    return out

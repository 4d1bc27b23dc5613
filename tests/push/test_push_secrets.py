#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Acceptance (--push-header-file, PERFTOP_PUSH_HEADERS, credentials out of sight), against the
stand-in of Pyroscope's /ingest on 127.0.0.1 (ingest_server.py; no other address is used):

  - refused: a header file readable or writable by its group or others, a symbolic link to a good
    one, a directory, a line that is no header: one line on stderr, exit 2, and that line does not
    hold the secret;
  - accepted: --push-header-file (0600), PERFTOP_PUSH_HEADERS and --push-header together: every
    header reaches the server; while perftop runs its /proc/PID/cmdline holds none of the three
    values, and the command it started has no PERFTOP_PUSH_HEADERS in its environment;
  - plain http to a host that is not this machine's loopback is warned about (and nothing is
    sent to it: the run is refused right after its options are read); 127.0.0.1 is not;
  - failing: a server that answers 401, then one that answers 500 to a URL with user:password,
    each quoting the Authorization header back in its answer: the JSON's last_error and stderr say
    the HTTP status and show "***" where the server quoted the credential, and no output holds
    the token, the password or the basic auth header's base64.

usage: test_push_secrets.py PERFTOP FIXTURE_DIR"""
import base64
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from e2elib import fail, kinds_for, need_perf_events, passed, perftop_path  # noqa: E402
from ingest_server import IngestServer, wait_for  # noqa: E402

perftop = perftop_path()
spinner = os.path.join(sys.argv[2], "spinner")
TOKEN = "tok-" + secrets.token_hex(8)
ENVKEY = "env-" + secrets.token_hex(8)
CMDKEY = "cmd-" + secrets.token_hex(8)
PASSWORD = "pw-" + secrets.token_hex(8)
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
ALL = (TOKEN, ENVKEY, CMDKEY, PASSWORD, BASIC)
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


def clean(text, what):
    for s in ALL:
        check(s not in text, f"{what} holds a credential ({s}): {text[-600:]!r}")


def write(path, text, mode):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


tmp = tempfile.mkdtemp(prefix="push_secrets.")
good = os.path.join(tmp, "headers")
write(good, f"# the push's credentials\nAuthorization: Bearer {TOKEN}\n\nX-Scope-OrgID: tenant-9\n",
      0o600)
refused = {}
for mode in (0o640, 0o604, 0o620, 0o602):
    refused[f"mode {mode:o}"] = os.path.join(tmp, f"h{mode:o}")
    write(refused[f"mode {mode:o}"], f"Authorization: Bearer {TOKEN}\n", mode)
refused["symlink"] = os.path.join(tmp, "link")
os.symlink(good, refused["symlink"])
refused["directory"] = tmp
refused["no header"] = os.path.join(tmp, "bad")
write(refused["no header"], f"X-Scope-OrgID: t\nBearer {TOKEN}\n", 0o600)
for what, path in refused.items():
    p = subprocess.run([perftop, "--push", "http://127.0.0.1:1", "--push-header-file", path, "-b",
                        "-n", "1"], capture_output=True, text=True, timeout=30)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "--push-header-file" in lines[0],
          f"{what}: exit {p.returncode}, stderr {p.stderr!r}")
    clean(p.stderr, f"{what}'s error")

# plain http to another host: warned at start. Nothing is sent: -u without a command is refused
# right after the push's options are read (push_plain_remote's cases are test_push's).
p = subprocess.run([perftop, "--push", f"http://alice:{PASSWORD}@10.1.2.3:4040", "-u", "root", "-b",
                    "-n", "1"], capture_output=True, text=True, timeout=30)
check(p.returncode == 2 and "10.1.2.3 over plain http" in p.stderr, f"no warning: {p.stderr!r}")
clean(p.stderr, "the warning")

need_perf_events(*kinds_for(["-e", "cpu-clock", "--", spinner]))


def child_of(pid):
    for e in os.listdir("/proc"):
        try:
            with open(f"/proc/{e}/stat") as f:
                if e.isdigit() and int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    return int(e)
        except OSError:
            continue
    return None


def run(url, extra, env_headers=None):
    """perftop pushing every second for 2 refreshes; its cmdline and its command's environment read
    while it runs. (stdout, stderr, cmdline, the command's environ)"""
    env = dict(os.environ)
    if env_headers:
        env["PERFTOP_PUSH_HEADERS"] = env_headers
    a = subprocess.Popen([perftop, "-e", "cpu-clock", "--push", url, "--push-interval", "1"] + extra +
                         ["-b", "--json", "-n", "2", "-d", "1", "--", spinner, "4"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    first = a.stdout.readline()  # the first refresh: started, privileges dropped, argv masked
    with open(f"/proc/{a.pid}/cmdline", "rb") as f:
        cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
    child = child_of(a.pid)
    environ = ""
    if child:
        with open(f"/proc/{child}/environ", "rb") as f:
            environ = f.read().replace(b"\0", b"\n").decode(errors="replace")
    out, err = a.communicate(timeout=60)
    check(a.returncode == 0, f"exit {a.returncode}: {err!r}")
    return first + out, err, cmdline, environ


def last_push(out):
    pushes = [json.loads(line).get("push") for line in out.splitlines() if line.startswith("{")]
    pushes = [p for p in pushes if p]
    check(pushes, f"no push in the JSON: {out[-300:]!r}")
    return pushes[-1] if pushes else {}


# every source of headers, a 401 first (quoting the Authorization header back), then accepted
with IngestServer(statuses=(401, 200), max_requests=20, echo_headers=("Authorization",)) as srv:
    out, err, cmdline, environ = run(srv.url, ["--push-header-file", good, "--push-header",
                                               f"X-Extra: {CMDKEY}"], f"X-Api-Key: {ENVKEY}")
    wait_for(lambda: len(srv.requests) >= 2, 5)
    reqs = list(srv.requests)
check(len(reqs) >= 2, f"{len(reqs)} requests")
for r in reqs:
    h = {k.lower(): v for k, v in r.headers.items()}
    check(h.get("authorization") == f"Bearer {TOKEN}" and h.get("x-scope-orgid") == "tenant-9" and
          h.get("x-api-key") == ENVKEY and h.get("x-extra") == CMDKEY,
          f"the headers the server got: {r.headers}")
check(TOKEN not in cmdline and CMDKEY not in cmdline and ENVKEY not in cmdline and
      "--push-header-file" in cmdline, f"/proc/PID/cmdline: {cmdline!r}")
check(environ and "PERFTOP_PUSH_HEADERS" not in environ,
      f"the command's environment: {environ[:300]!r}")
st = last_push(out)
check("HTTP 401" in st.get("last_error", "") and
      "Authorization=***" in st.get("last_error", ""), f"push: {st}")
clean(out, "stdout")
clean(err, "stderr")

# user:password in the URL, every push answered 500 with the basic auth header quoted back
with IngestServer(statuses=(500,), max_requests=20, echo_headers=("Authorization",)) as srv:
    url = f"http://alice:{PASSWORD}@127.0.0.1:{srv.port}"
    out, err, cmdline, environ = run(url, [])
    reqs = list(srv.requests)
check(reqs and all(r.headers.get("Authorization") == f"Basic {BASIC}" for r in reqs),
      f"{len(reqs)} requests, basic auth {[r.headers.get('Authorization') for r in reqs][:2]}")
check(PASSWORD not in cmdline and "alice:" in cmdline, f"/proc/PID/cmdline: {cmdline!r}")
st = last_push(out)
check(st.get("sent") == 0 and "HTTP 500" in st.get("last_error", "") and
      "Authorization=Basic ***" in st.get("last_error", ""), f"push: {st}")
check("HTTP 500" in err, f"stderr does not say the pushes failed: {err!r}")
check("plain http" not in err, f"a warning for 127.0.0.1: {err!r}")
clean(out, "stdout")
clean(err, "stderr")

passed(f"push_secrets: {checks} checks")

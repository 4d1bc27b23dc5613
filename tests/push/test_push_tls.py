#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--push to an https:// URL: the stand-in of Pyroscope's /ingest (ingest_server.py) behind TLS on
127.0.0.1, with a certificate made here by openssl for IP 127.0.0.1 and signed by nobody the
system trusts.
  - without anything to trust it, every push fails on the certificate (perftop verifies the server:
    nothing is accepted, last_error names the certificate problem) and the server gets no request;
  - with CURL_CA_BUNDLE=CERT, and again with SSL_CERT_FILE=CERT (the variables curl(1) reads), the
    pushes go through, and with --push-cacert CERT (which wins over CURL_CA_BUNDLE naming the
    system's CAs): at least 2 requests, each POST /ingest with a gzipped pprof body, and the
    spinner's hot function in them; the JSON's push says sent >= 2, failed 0.
Exit 77 (skip) only when openssl is missing or the kernel refuses the perf events (perf_probe).
usage: test_push_tls.py PERFTOP FIXTURE_DIR"""
import atexit
import os
import shutil
import ssl
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from e2elib import fail, kinds_for, need_perf_events, parse_snapshots, passed, perftop_path  # noqa: E402
from ingest_server import IngestServer, read_pprof  # noqa: E402
from perfprobe import need_tool  # noqa: E402

perftop = perftop_path()
spinner = os.path.join(sys.argv[2], "spinner")
need_tool("openssl", "to make the server's certificate")
need_perf_events(*kinds_for(["--", spinner]))
d = tempfile.mkdtemp(prefix="perftop-push-tls-")
atexit.register(shutil.rmtree, d, True)  # also when a check fails
cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
o = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], capture_output=True, text=True, timeout=60)
if o.returncode != 0:
    fail(f"openssl req: {o.stderr.strip()[:300]}")
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        fail(msg)


class TLSIngestServer(IngestServer):
    """The stand-in with its listening socket wrapped in TLS (the handshake happens in accept, on
    the server's thread; a client that rejects the certificate leaves no request)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.port}"


def push_run(env_extra, args=()):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR")}
    env.update(env_extra)
    with TLSIngestServer(statuses=(200,), max_requests=40) as srv:
        p = subprocess.run([perftop, "--push", srv.url, *args, "--push-interval", "1", "-b", "--json",
                            "-n", "4", "-d", "1", "--", spinner, "5"], capture_output=True,
                           text=True, timeout=90, env=env)
        reqs = list(srv.requests)
    snaps = parse_snapshots(p.stdout)
    if p.returncode != 0 or not snaps:
        fail(f"perftop --push https ({env_extra}): exit {p.returncode}, {p.stderr.strip()[:300]}")
    return snaps[-1].get("push", {}), reqs, p.stderr


what = "no CA given"
push, reqs, err = push_run({})
check(push.get("sent") == 0 and push.get("failed", 0) >= 1,
      f"{what}: an untrusted server accepted pushes: {push}")
check("certificate" in push.get("last_error", ""), f"{what}: last_error {push.get('last_error')!r}")
check(not reqs, f"{what}: the server got {len(reqs)} requests through a handshake perftop should "
      f"have refused")
print(f"ok: {what}: {push}")

# --push-cacert wins over the environment: CURL_CA_BUNDLE names the system's CAs, which do not
# trust the server
system_cas = "/etc/ssl/certs/ca-certificates.crt"
for var in ("CURL_CA_BUNDLE", "SSL_CERT_FILE", "--push-cacert"):
    what = f"{var} CERT" if var.startswith("--") else f"{var}=CERT"
    if var.startswith("--"):
        push, reqs, err = push_run({"CURL_CA_BUNDLE": system_cas} if os.path.exists(system_cas) else {},
                                   (var, cert))
    else:
        push, reqs, err = push_run({var: cert})
    check(push.get("sent", 0) >= 2 and push.get("failed") == 0, f"{what}: push {push}; {err[-300:]}")
    check(len(reqs) >= 2, f"{what}: the server got {len(reqs)} requests")
    functions = set()
    for r in reqs:
        check(r.method == "POST" and r.path == "/ingest", f"{what}: {r.method} {r.path}")
        try:
            functions |= set(read_pprof(r.body)["function_names"])
        except Exception as e:  # noqa: BLE001
            fail(f"{what}: a body that is no gzipped pprof: {e}")
    check("spinner_work" in functions, f"{what}: the spinner's hot function is in no profile")
    print(f"ok: {what}: {len(reqs)} requests over TLS, {push}")
passed(checks)

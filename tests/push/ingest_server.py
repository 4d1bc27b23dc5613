# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for Pyroscope's POST /ingest, for the push tests: an HTTP server on 127.0.0.1 only
(port 0: the kernel's choice), in a thread of the test, that records every request (method, path,
query, headers, body) and answers each with the next status of a script (the last one repeats).
It serves at most max_requests requests and stops by itself after lifetime seconds, so a test that
goes wrong cannot leave it behind.

Also a reader of what the pushes carry: gzip, then the few fields of a perftools.profiles.Profile
the tests look at (string table, sample types, samples' values, functions' names), by the
protobuf wire format (field numbers from pprof's profile.proto)."""
import gzip
import http.server
import threading
import time
import urllib.parse


class Request:
    def __init__(self, method, path, query, headers, body, status):
        self.method, self.path, self.query = method, path, query
        self.headers, self.body, self.status = headers, body, status


class IngestServer:
    def __init__(self, statuses=(200,), max_requests=50, lifetime=120, echo_headers=()):
        self.statuses = list(statuses)
        # a server that quotes these headers of the request back in a failure's answer (as some
        # error pages do): what perftop shows of a failure must not hold them
        self.echo_headers = echo_headers
        self.max_requests = max_requests
        self.requests = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                outer._handle(self, "POST")

            def do_GET(self):
                outer._handle(self, "GET")

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.timer = threading.Timer(lifetime, self.stop)
        self.timer.daemon = True
        self.timer.start()

    def _handle(self, h, method):
        n = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(n) if n else b""
        u = urllib.parse.urlsplit(h.path)
        query = urllib.parse.parse_qs(u.query, keep_blank_values=True)
        with self.lock:
            i = len(self.requests)
            if i >= self.max_requests:
                status = 503
            else:
                status = self.statuses[min(i, len(self.statuses) - 1)]
                self.requests.append(Request(method, u.path, query, dict(h.headers), body, status))
        reply = b"ok" if status < 300 else b"bad series name" if status < 500 else b"overloaded"
        if status >= 300:
            reply += "".join(f" {k}={h.headers[k]}" for k in self.echo_headers if k in h.headers).encode()
        h.send_response(status)
        h.send_header("Content-Length", str(len(reply)))
        h.end_headers()
        h.wfile.write(reply)
        if i + 1 >= self.max_requests:
            threading.Thread(target=self.stop, daemon=True).start()

    def stop(self):
        self.timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()


# --- reading a pprof body ---

def _varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def _fields(b):
    """(field, wire type, value) of a protobuf message: ints for varints, bytes for the rest."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield f, wt, v


def _packed(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def read_pprof(body):
    """The gzipped Profile as a dict: strings, sample_types [(type, unit)], sample_values (each
    sample's values), sample_labels, function_names; raises on anything that is not one."""
    raw = gzip.decompress(body)
    strings, types, values, fnames, labels = [], [], [], [], []
    for f, wt, v in _fields(raw):
        if f == 6:
            strings.append(v.decode())
        elif f == 1:
            d = {ff: vv for ff, _, vv in _fields(v)}
            types.append((d.get(1, 0), d.get(2, 0)))
        elif f == 2:
            vals, labs = [], []
            for ff, w, vv in _fields(v):
                if ff == 2:
                    vals += _packed(w, vv)
                elif ff == 3:
                    d = {lf: lv for lf, _, lv in _fields(vv)}
                    labs.append((d.get(1, 0), d.get(2, 0), d.get(3, 0)))
            values.append(vals)
            labels.append(labs)
        elif f == 5:
            d = {ff: vv for ff, _, vv in _fields(v)}
            fnames.append(d.get(2, 0))
    return {"strings": strings,
            "sample_types": [(strings[t], strings[u]) for t, u in types],
            "sample_values": values,
            # each sample's labels, key -> its string (a str label) or its number
            "sample_labels": [{strings[k]: strings[s] if s else n for k, s, n in labs}
                              for labs in labels],
            "function_names": [strings[n] for n in fnames]}


def wait_for(pred, secs):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()

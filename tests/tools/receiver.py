#!/usr/bin/env python3
"""A notification receiver for the daemon's tests: answers the first
FAIL_FIRST POSTs with 503, then 200, and keeps every body it accepted as
DIR/N.json. Usage: receiver.py PORT DIR FAIL_FIRST"""
import http.server
import os
import sys

port, out_dir, fail_first = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
seen = {"posts": 0, "kept": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        seen["posts"] += 1
        if seen["posts"] <= fail_first:
            self.send_response(503)
            self.end_headers()
            return
        seen["kept"] += 1
        with open(os.path.join(out_dir, "%d.json" % seen["kept"]), "wb") as f:
            f.write(body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, fmt, *args):
        sys.stderr.write("receiver: " + fmt % args + "\n")


http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()

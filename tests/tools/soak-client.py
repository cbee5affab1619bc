#!/usr/bin/env python3
"""Webhook load for the soak test: CLIENTS threads send TOTAL plain
webhooks to BASE/webhook, spread over SECONDS, each to one of QUEUES
(comma-separated) and of one kind:

  fresh      signed, with a new X-GitHub-Delivery
  replay     signed, repeating a delivery sent before by this run
  unsigned   a wrong signature
  oversized  signed, a body over the daemon's max-body (BIG bytes)

A connection refused or reset (the daemon killed) is recorded as status 0
and not retried. Each request is one JSON line in OUT: kind, queue,
delivery, status, job (from the answer, or null), seconds.

    soak-client.py BASE SECRET QUEUES TOTAL SECONDS CLIENTS BIG OUT
"""
import hashlib
import hmac
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse
import uuid

base, secret, queues = sys.argv[1], sys.argv[2].encode(), sys.argv[3].split(",")
total, seconds, clients = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
big, out_path = int(sys.argv[7]), sys.argv[8]
url = urllib.parse.urlparse(base)
lock = threading.Lock()
sent = []          # deliveries sent fresh, for replays
records = []
next_index = [0]
start = time.monotonic()


def pick_kind(rng):
    r = rng.random()
    if r < 0.70:
        return "fresh"
    if r < 0.82:
        return "replay" if sent else "fresh"
    if r < 0.92:
        return "unsigned"
    return "oversized"


def one(rng, index):
    kind = pick_kind(rng)
    queue = rng.choice(queues)
    delivery = str(uuid.uuid4())
    if kind == "replay":
        with lock:
            queue, delivery = rng.choice(sent)
    body = json.dumps({"queue": queue}).encode()
    if kind == "oversized":
        body = json.dumps({"queue": queue, "pad": "x" * big}).encode()
    signature = hmac.new(secret, body, hashlib.sha256).hexdigest()
    if kind == "unsigned":
        signature = "0" * 64
    headers = {"Content-Type": "application/json", "X-GitHub-Delivery": delivery,
               "X-Hub-Signature-256": "sha256=" + signature}
    status, job = 0, None
    t0 = time.monotonic()
    try:
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        conn.request("POST", "/webhook", body, headers)
        resp = conn.getresponse()
        status = resp.status
        answer = resp.read()
        conn.close()
        try:
            job = json.loads(answer).get("job")
        except ValueError:
            pass
    except OSError:
        status = 0
    elapsed = time.monotonic() - t0
    if kind == "fresh" and status == 202:
        with lock:
            sent.append((queue, delivery))
    return {"index": index, "kind": kind, "queue": queue, "delivery": delivery,
            "status": status, "job": job, "seconds": round(elapsed, 6)}


def worker(seed):
    rng = random.Random(seed)
    while True:
        with lock:
            index = next_index[0]
            if index >= total:
                return
            next_index[0] += 1
        due = start + seconds * index / total
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        rec = one(rng, index)
        with lock:
            records.append(rec)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
for t in threads:
    t.start()
for t in threads:
    t.join()
with open(out_path, "w") as f:
    for rec in sorted(records, key=lambda r: r["index"]):
        f.write(json.dumps(rec) + "\n")

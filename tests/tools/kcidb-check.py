#!/usr/bin/env python3
"""kcidb-check SCHEMA FILE: validates KCIDB I/O JSON against SCHEMA
(python3-jsonschema, draft 2020-12, formats checked) and checks what a
JSON Schema cannot: no null anywhere, ids unique per kind, every build's
checkout_id a checkout, every test's build_id a build. Prints one line
per problem and "valid: C checkouts, B builds, T tests" when there is
none; exits 1 on a problem."""
import json
import re
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
data = json.load(open(sys.argv[2]))
problems = []
validator = jsonschema.Draft202012Validator(
    schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
for e in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path)):
    problems.append("schema: %s: %s" % ("/".join(map(str, e.absolute_path)), e.message))


def nulls(v, at):
    if v is None:
        problems.append("null at %s" % at)
    elif isinstance(v, dict):
        for k, x in v.items():
            nulls(x, at + "/" + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            nulls(x, "%s/%d" % (at, i))


nulls(data, "")


# jsonschema checks "uri" only with rfc3987 installed: check URLs here
def urls(v, at):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("url", "log_url", "config_url") and (
                    not isinstance(x, str) or not re.match(r"^[a-z][a-z0-9+.-]*://[^\s]+$", x)):
                problems.append("not a URI at %s/%s: %r" % (at, k, x))
            urls(x, at + "/" + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            urls(x, "%s/%d" % (at, i))


urls(data, "")
ids = {}
for kind in ("checkouts", "builds", "tests"):
    seen = [o.get("id") for o in data.get(kind, [])]
    if len(seen) != len(set(seen)):
        problems.append("%s: ids not unique" % kind)
    ids[kind] = set(seen)
for b in data.get("builds", []):
    if b.get("checkout_id") not in ids["checkouts"]:
        problems.append("build %s: checkout_id %s is no checkout" % (b.get("id"), b.get("checkout_id")))
for t in data.get("tests", []):
    if t.get("build_id") not in ids["builds"]:
        problems.append("test %s: build_id %s is no build" % (t.get("id"), t.get("build_id")))
for p in problems:
    print(p)
if problems:
    sys.exit(1)
print("valid: %d checkouts, %d builds, %d tests" % (
    len(ids["checkouts"]), len(ids["builds"]), len(ids["tests"])))

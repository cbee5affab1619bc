#!/usr/bin/env python3
"""Writes a JSON Schema (draft 2020-12) holding the rules of KCIDB I/O
schema v5.3 (kernelci kcidb-io, kcidb_io/schema/v05_03.py) that the
gate's output must keep: every property of checkout, build and test with
its type, pattern and enum, the required ones, and no others
(additionalProperties false). Transcribed by hand from v05_03.py; the
patterns are its own (origin_pattern, origin_id_pattern,
git_commit_hash_pattern, sha256_pattern, test_path_re of v3/v5.0)."""
import json
import sys

ORIGIN = "^[a-z0-9_]+$"
ID = "^[a-z0-9_]+:[^\\0]*$"
TEXT = {"type": "string", "pattern": "^[^\\0]*$"}
TIME = {"type": "string", "format": "date-time"}
URI = {"type": "string", "format": "uri"}
EXCERPT = {"type": "string", "maxLength": 16384, "pattern": "^[^\\0]*$"}
STATUS = {"type": "string", "enum": ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]}
RESOURCES = {"type": "array", "items": {
    "type": "object", "additionalProperties": False, "required": ["name", "url"],
    "properties": {"name": {"type": "string", "pattern": "^[^/\\0]+$"}, "url": URI}}}

checkout = {
    "type": "object", "additionalProperties": False, "required": ["id", "origin"],
    "properties": {
        "_timestamp": TIME,
        "id": {"type": "string", "pattern": ID},
        "origin": {"type": "string", "pattern": ORIGIN},
        "tree_name": TEXT,
        "git_repository_url": {"type": "string", "format": "uri",
                               "pattern": "^https://[^\\0]*$"},
        "git_commit_hash": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
        "git_commit_name": TEXT,
        "git_commit_tags": {"type": "array", "items": TEXT},
        "git_commit_message": TEXT,
        "git_repository_branch": TEXT,
        "git_repository_branch_tip": {"type": "boolean"},
        "patchset_files": RESOURCES,
        "patchset_hash": {"type": "string", "pattern": "^$|^[0-9a-f]{64}$"},
        "message_id": {"type": "string", "format": "email"},
        "comment": TEXT,
        "start_time": TIME,
        "origin_builds_finish_time": TIME,
        "origin_tests_finish_time": TIME,
        "log_url": URI,
        "log_excerpt": EXCERPT,
        "valid": {"type": "boolean"},
        "misc": {"type": "object"},
    }}
build = {
    "type": "object", "additionalProperties": False,
    "required": ["checkout_id", "id", "origin"],
    "properties": {
        "_timestamp": TIME,
        "checkout_id": {"type": "string", "pattern": ID},
        "id": {"type": "string", "pattern": ID},
        "origin": {"type": "string", "pattern": ORIGIN},
        "comment": TEXT,
        "start_time": TIME,
        "duration": {"type": "number"},
        "architecture": {"type": "string", "pattern": "^[a-z0-9_]*$"},
        "command": TEXT,
        "compiler": TEXT,
        "input_files": RESOURCES,
        "output_files": RESOURCES,
        "config_name": TEXT,
        "config_url": URI,
        "log_url": URI,
        "log_excerpt": EXCERPT,
        "status": STATUS,
        "misc": {"type": "object"},
    }}
test = {
    "type": "object", "additionalProperties": False, "required": ["build_id", "id", "origin"],
    "properties": {
        "_timestamp": TIME,
        "build_id": {"type": "string", "pattern": ID},
        "id": {"type": "string", "pattern": ID},
        "origin": {"type": "string", "pattern": ORIGIN},
        "environment": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "compatible": {"type": "array", "items": {
                    "type": "string", "pattern": "^[^ \\0]+(,[^ \\0]+)*$"}},
                "comment": TEXT,
                "misc": {"type": "object"}}},
        "path": {"type": "string",
                 "pattern": "^([a-zA-Z0-9_-]+(\\.[a-zA-Z0-9_-]+)*)?$"},
        "comment": TEXT,
        "log_url": URI,
        "log_excerpt": EXCERPT,
        "status": STATUS,
        "number": {"type": "object", "additionalProperties": False, "required": ["value"],
                   "properties": {"value": {"type": "number"}, "unit": TEXT,
                                  "prefix": {"type": "string",
                                             "enum": ["metric", "binary"]}}},
        "start_time": TIME,
        "duration": {"type": "number"},
        "input_files": RESOURCES,
        "output_files": RESOURCES,
        "misc": {"type": "object"},
    }}
schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "kcidb v5.3 (the rules backport-gate keeps)",
    "type": "object", "additionalProperties": False, "required": ["version"],
    "properties": {
        "version": {"type": "object", "additionalProperties": False,
                    "required": ["major"],
                    "properties": {"major": {"type": "integer", "const": 5},
                                   "minor": {"type": "integer", "minimum": 0,
                                             "maximum": 3}}},
        "checkouts": {"type": "array", "items": checkout},
        "builds": {"type": "array", "items": build},
        "tests": {"type": "array", "items": test},
        "issues": {"type": "array"},
        "incidents": {"type": "array"},
    }}
json.dump(schema, sys.stdout, indent=1)

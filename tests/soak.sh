#!/bin/bash
# The soak test's short form, for make check (about 45 s): 300 webhooks
# over 15 s from 16 clients, the daemon killed twice. make soak runs
# tests/long/soak.sh whole (2,000 over 60 s, five kills).
SOAK_TOTAL=300 SOAK_SECONDS=15 SOAK_KILLS=2 exec "$(dirname "$0")/long/soak.sh"

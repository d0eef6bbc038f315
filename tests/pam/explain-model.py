#!/usr/bin/env python3
"""What `rdmalimits explain --json` says pam_rdmalimit gives, applied to a process that starts
at SOFT:HARD without CAP_SYS_RESOURCE: the module never lowers (unless `lower`), and when the
hard limit cannot rise it keeps the hard limit and takes soft as far as it may go.
Reads the explain JSON on stdin, prints "SOFT HARD" (bytes or unlimited)."""
import json
import sys

INF = 2**64 - 1
start_soft, start_hard = (INF if x == "unlimited" else int(x) for x in sys.argv[1].split(":"))
p = json.load(sys.stdin).get("policy")
soft, hard = start_soft, start_hard
if p:
    ts, th = (INF if x == "unlimited" else x for x in (p["soft"], p["hard"]))
    low = p["lower"]
    soft = ts if low else max(ts, start_soft)
    hard = th if low else max(th, start_hard)
    soft = min(soft, hard)
    if hard > start_hard:  # EPERM: the closest value
        hard = min(hard, start_hard)
        new_soft = min(soft, hard)
        if not low and new_soft < start_soft <= hard:
            new_soft = start_soft
        soft = new_soft
print(*("unlimited" if v == INF else v for v in (soft, hard)))

"""Writes the raw files of one simulated experiment on 5 hosts (2 sessions of 10 ABBA
blocks each), for trying `abba analyze DIR/*.jsonl` and its many-hosts section.

On the log scale every run is ln(50 ms) + effect + host + session + block + run noise,
with standard deviations 10%, 4%, 2% and 1% and a 3% faster `new`.
Run: python3 examples/simulated-fleet.py DIR
"""
import json
import math
import os
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "results"
os.makedirs(out, exist_ok=True)
random.seed(7)
for h in range(5):
    name = f"node-{h + 1:02d}"
    host = random.gauss(0, 0.10)
    header = {
        "schema": "abba.raw/1", "abba_version": "0.1.0", "design": "abba", "seed": h + 1,
        "blocks": 20,
        "variants": [{"name": "old", "command": "./old --bench"},
                     {"name": "new", "command": "./new --bench"}],
        "reference": None, "metric": "wall", "unit": "ns", "higher_is_better": False,
        "layout": "random", "pin": None, "warmup": 1, "settle_ns": 0,
        "host": {"cpu_model": None, "cores": 2, "kernel": None, "governor": None,
                 "turbo": None, "aslr": 2, "load_start": None, "load_end": None,
                 "env_bytes": 10, "argv_bytes": 5, "start_time": "2026-12-01T00:00:00Z",
                 "hostname": name},
        "experiment": "pr-123",
    }
    lines = [json.dumps(header, separators=(",", ":"))]
    run = 0
    for s in range(2):
        session = random.gauss(0, 0.04)
        for k in range(10):
            b = s * 10 + k
            block = random.gauss(0, 0.02)
            order = ["old", "new", "new", "old"] if b % 2 == 0 else ["new", "old", "old", "new"]
            for p, v in enumerate(order):
                effect = -0.03 if v == "new" else 0.0
                wall = int(math.exp(math.log(5e7) + effect + host + session + block + random.gauss(0, 0.01)))
                lines.append(json.dumps({
                    "run": run, "block": b, "position": p, "variant": v, "wall_ns": wall,
                    "user_ns": wall, "sys_ns": 0, "max_rss_kib": 1000, "exit_code": 0,
                    "timed_out": False, "env_pad": p, "metric": None, "session": s,
                }, separators=(",", ":")))
                run += 1
    with open(os.path.join(out, f"{name}-{h}.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")

# Writes crates/bench-cli/tests/data/verdicts/holm_held_back.csv (`python3 holm_held_back.py 32`):
# blocks of runs of a, b (1.2% slower) and c (1.2% faster), seeded.
import random, sys
def gen(seed, blocks=8, runs=5, eff=0.012, sd=0.02):
    r = random.Random(seed)
    rows = ["variant,value,block"]
    for b in range(blocks):
        level = 100 * (1 + 0.05 * r.random())
        for v, f in (("a", 1.0), ("b", 1 + eff), ("c", 1 - eff)):
            for _ in range(runs):
                rows.append(f"{v},{level * f * (1 + r.gauss(0, sd)):.3f},{b}")
    return "\n".join(rows) + "\n"
if __name__ == "__main__":
    sys.stdout.write(gen(int(sys.argv[1])))

#!/usr/bin/env bash
# Perft throughput of arbiter-rules against cozy-chess, measured in the same run, as a table.
#
#   scripts/bench-perft.sh                          # every position, criterion defaults of the bench
#   scripts/bench-perft.sh --measurement-time 8     # any criterion option, or a name filter: pos3
#   BENCH_TABLE=out.md scripts/bench-perft.sh       # also write the table to a file
#   PERFT_BENCH_CPU_TIME=1 scripts/bench-perft.sh   # thread CPU time instead of wall-clock time
#                                                   # (steadier on a busy machine; Linux only)
#
# Runs `cargo bench -p arbiter-rules --bench perft` (crates/rules/benches/perft.rs), then reads
# criterion's estimates under $CARGO_TARGET_DIR/criterion/perft/<engine>/<position>/new/ with
# python3 (standard library only). Only results written by this run make it into the table.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
stamp="$(mktemp)"
trap 'rm -f "$stamp"' EXIT

cargo bench -p arbiter-rules --bench perft -- "$@"

python3 - "$target_dir/criterion/perft" "$stamp" "${BENCH_TABLE:-}" <<'PY'
import json, math, os, sys

group_dir, stamp, out = sys.argv[1], sys.argv[2], sys.argv[3]
since = os.path.getmtime(stamp)
ENGINES = ("arbiter", "cozy-chess")
rows = {}  # position id -> {engine: (nodes, seconds)}
order = []
for engine in ENGINES:
    edir = os.path.join(group_dir, engine)
    if not os.path.isdir(edir):
        continue
    for pos in sorted(os.listdir(edir)):
        new = os.path.join(edir, pos, "new")
        est_path = os.path.join(new, "estimates.json")
        if not os.path.exists(est_path) or os.path.getmtime(est_path) < since:
            continue  # stale result from an earlier run
        with open(os.path.join(new, "benchmark.json")) as f:
            bench = json.load(f)
        with open(est_path) as f:
            est = json.load(f)
        nodes = bench["throughput"]["Elements"]
        seconds = est["median"]["point_estimate"] / 1e9  # criterion stores ns per iteration
        label = bench.get("value_str") or pos
        if label not in rows:
            rows[label] = {}
            order.append(label)
        rows[label][engine] = (nodes, seconds)

if not rows:
    sys.exit(f"no fresh criterion results under {group_dir}")

def mnps(cell):
    return cell[0] / cell[1] / 1e6

lines = [
    "| position | nodes | arbiter Mnps | cozy-chess Mnps | ratio (ours/cozy) |",
    "|---|---:|---:|---:|---:|",
]
ratios = []
tot = {e: [0, 0.0] for e in ENGINES}
def key(label):  # the order of the bench's case list: pos1..pos6
    return (label.split("-")[0], label)
for label in sorted(order, key=key):
    r = rows[label]
    ours, cozy = r.get("arbiter"), r.get("cozy-chess")
    nodes = (ours or cozy)[0]
    for e in ENGINES:
        if e in r:
            tot[e][0] += r[e][0]
            tot[e][1] += r[e][1]
    a = f"{mnps(ours):.1f}" if ours else "-"
    c = f"{mnps(cozy):.1f}" if cozy else "-"
    ratio = "-"
    if ours and cozy:
        q = mnps(ours) / mnps(cozy)
        ratios.append(q)
        ratio = f"{q:.2f}"
    lines.append(f"| {label} | {nodes:,} | {a} | {c} | {ratio} |")
if ratios and all(tot[e][1] for e in ENGINES):
    ta = tot["arbiter"][0] / tot["arbiter"][1] / 1e6
    tc = tot["cozy-chess"][0] / tot["cozy-chess"][1] / 1e6
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    lines.append(f"| all (total nodes / total time) | {tot['arbiter'][0]:,} | {ta:.1f} | {tc:.1f} | {ta / tc:.2f} |")
    lines.append(f"| geometric mean of ratios | | | | {geo:.2f} |")
table = "\n".join(lines)
print()
clock = "thread CPU time" if os.environ.get("PERFT_BENCH_CPU_TIME", "0") not in ("", "0") else "wall-clock time"
print(f"Perft throughput ({clock}, median per iteration; Mnps = million nodes per second)")
print(table)
if out:
    with open(out, "w") as f:
        f.write(table + "\n")
PY

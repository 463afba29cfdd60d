#!/usr/bin/env bash
# Games adjudicated per second by `arbiter adjudicate` as a whole process, against python-chess
# replaying the same games (chess.pgn.read_game, main line played, board.outcome()), measured in
# the same run on the same files.
#
#   scripts/bench-adjudicate.sh                       # the shared corpus (../shared/data/games)
#   scripts/bench-adjudicate.sh a.pgn b.pgn           # given .pgn files
#   ANALYSIS=full scripts/bench-adjudicate.sh         # arbiter's --analysis (default: material)
#   JOBS=1 scripts/bench-adjudicate.sh                # arbiter's -j (default: all cores)
#   ARBITER=target/release/arbiter scripts/bench-adjudicate.sh   # skip the build
#   BASELINE=/tmp/arbiter-old RUNS=5 JOBS=1 scripts/bench-adjudicate.sh   # against another build
#
# Every file is timed with `arbiter adjudicate FILE --format jsonl --analysis $ANALYSIS [-j $JOBS] >
# /dev/null` (best of $RUNS runs, default 3) and with one python-chess run. `.pgn.zst` files are
# decompressed to a temporary directory first (needs `zstd`; skipped without it). python-chess
# 1.11.2 is installed into a virtualenv the script creates ($VENV, default
# ${TMPDIR:-/tmp}/arbiter-bench-venv).
#
# With BASELINE (another `arbiter` binary, e.g. one built from an older commit), python-chess is
# not run: every file is adjudicated $RUNS times by each binary, the two alternating, and the
# script prints the median CPU time (user + system, from getrusage) of each and their ratio, per
# file and summed. Interleaving cancels most of the drift of a shared machine.
set -euo pipefail
shopt -s nullglob

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
analysis="${ANALYSIS:-material}"
jobs=()
if [[ -n "${JOBS:-}" ]]; then jobs=(-j "$JOBS"); fi
runs="${RUNS:-3}"
venv="${VENV:-${TMPDIR:-/tmp}/arbiter-bench-venv}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
arbiter="${ARBITER:-}"
if [[ -z "$arbiter" ]]; then
  cargo build --release -p arbiter-server --bin arbiter >&2
  arbiter="$target_dir/release/arbiter"
fi

baseline="${BASELINE:-}"
if [[ -z "$baseline" ]]; then
  if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
  fi
  if ! "$venv/bin/python" -c 'import chess, sys; sys.exit(chess.__version__ != "1.11.2")' 2>/dev/null; then
    "$venv/bin/pip" install --quiet 'chess==1.11.2' >&2
  fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

files=()
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  corpus="${ARBITER_CORPUS_DIR:-$root/../shared/data/games}"
  for f in "$corpus"/*.pgn; do files+=("$f"); done
  if command -v zstd >/dev/null; then
    for f in "$corpus"/*.pgn.zst; do
      [[ -e "$f" ]] || continue
      out="$work/$(basename "${f%.zst}")"
      zstd -q -d -c "$f" > "$out"
      files+=("$out")
    done
  else
    echo "zstd not found: .pgn.zst files skipped" >&2
  fi
fi

if [[ -n "$baseline" ]]; then
  python3 - "$baseline" "$arbiter" "$analysis" "$runs" "${JOBS:-}" "${files[@]}" <<'PY'
import os, resource, statistics, subprocess, sys
baseline, arbiter, analysis, runs, jobs, files = (
    sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6:])
def cpu(binary, path):
    """CPU seconds (user + system) of one whole `arbiter adjudicate` process."""
    args = [binary, "adjudicate", path, "--format", "jsonl", "--analysis", analysis]
    args += ["-j", jobs] if jobs else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{'file':<52} {'baseline s':>10} {'arbiter s':>10} {'ratio':>7}")
total_b = total_a = 0.0
for path in files:
    b, a = [], []
    for _ in range(runs):
        b.append(cpu(baseline, path))
        a.append(cpu(arbiter, path))
    mb, ma = statistics.median(b), statistics.median(a)
    total_b += mb
    total_a += ma
    print(f"{os.path.basename(path):<52} {mb:>10.3f} {ma:>10.3f} {ma / mb:>7.3f}")
print(f"{'total (sum of medians)':<52} {total_b:>10.3f} {total_a:>10.3f} {total_a / total_b:>7.3f}")
print(f"CPU time of arbiter / baseline, --analysis {analysis}"
      f"{', -j ' + jobs if jobs else ''}, medians of {runs} interleaved runs: "
      f"{total_a / total_b:.3f} (above 1: arbiter is slower)")
PY
  exit 0
fi

cat > "$work/replay.py" <<'PY'
import sys, time
import chess, chess.pgn
path = sys.argv[1]
games = 0
start = time.perf_counter()
with open(path, encoding="utf-8", errors="replace") as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        games += 1
        try:  # a game python-chess cannot set up (e.g. a bad FEN tag) still counts as read
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
            board.outcome()
        except ValueError:
            pass
print(games, time.perf_counter() - start)
PY

printf '%-52s %7s %10s %12s %12s %7s\n' file games "arbiter s" "arbiter g/s" "python g/s" ratio
total_games=0; total_pgames=0; total_a=0; total_p=0
for f in "${files[@]}"; do
  best=""
  for _ in $(seq "$runs"); do
    s=$(date +%s.%N)
    "$arbiter" adjudicate "$f" --format jsonl --analysis "$analysis" "${jobs[@]}" > /dev/null 2>"$work/summary" || true
    e=$(date +%s.%N)
    t=$(python3 -c "print($e - $s)")
    best=$(python3 -c "print(min(float('$t'), float('${best:-1e9}')))")
  done
  games=$(sed -n 's/^summary: \([0-9]*\) games\{0,1\}[;].*/\1/p' "$work/summary")
  read -r pgames pseconds < <("$venv/bin/python" "$work/replay.py" "$f")
  python3 - "$f" "$games" "$best" "$pgames" "$pseconds" <<'PY'
import os, sys
f, games, a, pgames, p = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
print(f"{os.path.basename(f):<52} {games:>7} {a:>10.3f} {games/a:>12.0f} {pgames/p:>12.0f} {(games/a)/(pgames/p):>6.0f}x")
PY
  total_games=$((total_games + games))
  total_pgames=$((total_pgames + pgames))
  total_a=$(python3 -c "print($total_a + $best)")
  total_p=$(python3 -c "print($total_p + $pseconds)")
done
python3 - "$total_games" "$total_a" "$total_p" "$analysis" "$total_pgames" "${JOBS:-}" <<'PY'
import sys
g, a, p, analysis, pg = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
jobs = f", -j {sys.argv[6]}" if sys.argv[6] else ", -j all cores"
print(f"{'total':<52} {g:>7} {a:>10.3f} {g/a:>12.0f} {pg/p:>12.0f} {(g/a)/(pg/p):>6.0f}x")
print(f"arbiter: {g/a:.0f} games/s (--analysis {analysis}{jobs}, whole process, best of runs); "
      f"python-chess 1.11.2: {pg/p:.0f} games/s; ratio {(g/a)/(pg/p):.0f}x")
PY

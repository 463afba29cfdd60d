#!/usr/bin/env bash
# Issue 28 item 4: `arbiter adjudicate` reading a .pgn.zst directly against reading the PGN file
# it holds (decompressed once, with `zstd -dc`, into a temporary directory), with the same
# binary and flags, the two runs alternating, ROUNDS rounds (default 3). Prints each run's wall
# and user CPU seconds and peak memory, the medians, and the speed of the compressed run as a
# fraction of the plain run's (plain wall time / compressed wall time; the target is >= 0.9).
# Checks that both runs wrote the same records.
#
#   scripts/bench-compressed.sh [FILE.pgn.zst] [arbiter flags...]
#
# Defaults: ../shared/data/games/otb-classical-pgnmentor.pgn.zst, `-j 1 --analysis material
# --format jsonl`; ARBITER (default bin/arbiter) names the binary. Needs zstd and GNU time.
set -euo pipefail

ARBITER=${ARBITER:-bin/arbiter}
ROUNDS=${ROUNDS:-3}
FILE=${1:-../shared/data/games/otb-classical-pgnmentor.pgn.zst}
shift || true
FLAGS=("$@")
if [ ${#FLAGS[@]} -eq 0 ]; then
  FLAGS=(-j 1 --analysis material --format jsonl)
fi
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "GNU time ($TIME) is needed: apt-get install time" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plain="$work/$(basename "${FILE%.zst}")"
zstd -q -d -c "$FILE" > "$plain"
echo "file: $FILE ($(stat -c %s "$FILE") bytes; decompressed $(stat -c %s "$plain") bytes)"
echo "flags: ${FLAGS[*]}; binary: $ARBITER; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# Runs arbiter on $1 and prints "wall user maxrss_kb"; the records go to $2.
run() {
  local status=0
  "$TIME" -f "%e %U %M" -o "$work/time" "$ARBITER" adjudicate "$1" "${FLAGS[@]}" \
    > "$2" 2> /dev/null || status=$?
  # 2: a game has a finding (the corpus has errors and disagreements); anything else fails.
  if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
    echo "arbiter exited with $status on $1" >&2
    exit 1
  fi
  # GNU time writes "Command exited with non-zero status 2" before its figures.
  tail -n 1 "$work/time"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$work/plain.times"
: > "$work/zst.times"
for round in $(seq "$ROUNDS"); do
  p=$(run "$plain" "$work/plain.out")
  z=$(run "$FILE" "$work/zst.out")
  echo "round $round: plain $p | zst $z   (wall s, user s, max RSS KiB)"
  echo "$p" >> "$work/plain.times"
  echo "$z" >> "$work/zst.times"
  cmp -s "$work/plain.out" "$work/zst.out" || { echo "the records differ" >&2; exit 1; }
done
pw=$(cut -d' ' -f1 "$work/plain.times" | median)
zw=$(cut -d' ' -f1 "$work/zst.times" | median)
pu=$(cut -d' ' -f2 "$work/plain.times" | median)
zu=$(cut -d' ' -f2 "$work/zst.times" | median)
pm=$(cut -d' ' -f3 "$work/plain.times" | median)
zm=$(cut -d' ' -f3 "$work/zst.times" | median)
echo "median wall: plain $pw s, zst $zw s; median user: plain $pu s, zst $zu s; median max RSS: plain $pm KiB, zst $zm KiB"
awk -v p="$pw" -v z="$zw" -v pu="$pu" -v zu="$zu" \
  'BEGIN { printf "speed of the zst run: %.3f of the plain run (wall), %.3f (user CPU)\n", p / z, pu / zu }'
echo "records: identical ($(wc -l < "$work/zst.out") lines)"

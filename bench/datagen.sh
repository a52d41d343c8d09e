#!/usr/bin/env bash
# Self-play speed against its bound (issue 46): for each datagen recipe,
# the positions per CPU-second and nodes a position that `nnuelab datagen`
# reports at the end of a run (GAMES games at one thread), and the bound:
# `nnuelab bench`'s nodes per CPU-second with the same net (its node count
# over its user CPU time, /usr/bin/time) over the recipe's nodes a
# position. Rounds alternate the recipes with bench; prints every run and a
# Markdown table of medians. About 2 minutes a round with chess768.
# Usage: bench/datagen.sh [rounds] [games] [arch]
# ONLY=REGEX limits the recipes to those whose names match (e.g.
# ONLY='^(n5000|noprune)$').
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
games=${2:-32}
arch=${3:-chess768}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 1; }
make >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
recipes=(
	"n5000|--nodes 5000"
	"n2500|--nodes 2500"
	"n1250|--nodes 1250"
	"n625|--nodes 625"
	"soft2500|--soft-nodes 2500 --nodes 10000"
	"chess960|--start chess960 --random-plies 8"
	"dfrc|--start dfrc --random-plies 8"
	"win1000|--win-score 1000 --win-plies 3"
	"balanced200|--max-opening-score 200"
	"noprune|--no-move-loop-pruning"
	"syzygy|--syzygy engine/syzygy/testdata/tables"
	"gen5|--nodes 1250 --win-score 1000 --win-plies 3"
)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); CPU: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
for ((r = 1; r <= rounds; r++)); do
	for rec in "${recipes[@]}"; do
		name=${rec%%|*}
		[[ -z ${ONLY:-} || $name =~ $ONLY ]] || continue
		# shellcheck disable=SC2086 # the flags are words
		line=$(./nnuelab datagen --out "$out/$name-$r.binpack" --games "$games" --seed $((900 + r)) --arch "$arch" \
			--threads 1 --quiet ${rec#*|} | tail -1)
		echo "$r $name $line" | tee -a "$out/runs"
	done
	/usr/bin/time -f "%U" -o "$out/time" ./nnuelab bench --arch "$arch" >"$out/bench" 2>&1
	nodes=$(awk '/^Nodes searched/ {print $NF}' "$out/bench")
	echo "$r bench $nodes nodes in $(cat "$out/time") CPU-s" | tee -a "$out/runs"
done
awk '
function median(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) {t = a[i]; a[i] = a[j]; a[j] = t}; return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
$2 == "bench" { nps = nps " " sprintf("%.3f", $3 / $6 / 1e6); next }
{ if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 }
  for (i = 1; i <= NF; i++) { if ($i == "a" && $(i+1) == "position),") npp[$2] = npp[$2] " " substr($(i-1), 2); if ($(i+1) == "positions" && $(i+2) == "and") pps[$2] = pps[$2] " " $i } }
END {
  b = median(nps) * 1e6; printf "\nbench: %.2f M nodes per CPU-second (median of%s)\n\n", b / 1e6, nps
  print "| recipe | nodes a position | positions per CPU-s | bound | ratio |"; print "|---|---|---|---|---|"
  for (j = 1; j <= k; j++) { r = order[j]; n = median(npp[r]); p = median(pps[r]); printf "| %s | %d | %d (%s) | %d | %.2f |\n", r, n, p, substr(pps[r], 2), b / n, p / (b / n) }
}' "$out/runs"

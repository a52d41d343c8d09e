#!/usr/bin/env bash
# Does a second game beside it slow an engine? The ladder plays its
# one-thread rungs two games at once on two cores (docs/strength.md); this
# measures what that costs in speed: the nps of `nnuelab bench` and of
# Stockfish 15.1's `bench` alone, beside a second copy of itself and beside
# the other engine, in alternating rounds (medians and the median of the
# per-round ratios to alone). Needs the machine to itself. About a minute.
# Usage: bench/pair.sh [rounds] [stockfish]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
sf=${2:-/usr/games/stockfish}
[ -x "$sf" ] || { echo "no Stockfish at $sf (apt-get install -y stockfish)" >&2; exit 1; }
make >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
nl() { ./nnuelab bench 2>&1 | awk '/^Nodes\/second/ {print $NF}'; }
sfb() { printf 'bench 16 1 13 default depth\nquit\n' | "$sf" 2>&1 | awk '/^Nodes\/second/ {print $NF}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {printf "%.10g\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A v
for ((i = 1; i <= rounds; i++)); do
	a=$(nl)
	nl >"$out/a" & nl >"$out/b"; wait
	p1=$(cat "$out/a") p2=$(cat "$out/b")
	s=$(sfb)
	sfb >"$out/a" & sfb >"$out/b"; wait
	s1=$(cat "$out/a") s2=$(cat "$out/b")
	nl >"$out/a" & sfb >"$out/b"; wait
	mn=$(cat "$out/a") ms=$(cat "$out/b")
	v[nl_alone]+="$a " v[nl_pair]+="$p1 $p2 " v[nl_mixed]+="$mn "
	v[sf_alone]+="$s " v[sf_pair]+="$s1 $s2 " v[sf_mixed]+="$ms "
	v[nl_rpair]+="$(ratio "$(median "$p1" "$p2")" "$a") " v[nl_rmixed]+="$(ratio "$mn" "$a") "
	v[sf_rpair]+="$(ratio "$(median "$s1" "$s2")" "$s") " v[sf_rmixed]+="$(ratio "$ms" "$s") "
	echo "round $i: nnuelab alone $a, beside itself $p1 $p2, beside Stockfish $mn; Stockfish alone $s, beside itself $s1 $s2, beside nnuelab $ms"
done
for e in nl sf; do
	name=nnuelab
	[ "$e" = sf ] && name=Stockfish
	# shellcheck disable=SC2086 # the lists are space-separated numbers
	echo "$name: median nps alone $(median ${v[${e}_alone]}), beside itself $(median ${v[${e}_pair]}), beside the other $(median ${v[${e}_mixed]}); per-round ratio to alone: beside itself $(median ${v[${e}_rpair]}), beside the other $(median ${v[${e}_rmixed]})"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

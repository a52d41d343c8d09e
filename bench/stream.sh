#!/usr/bin/env bash
# Streamed against in-memory training (issue 46): positions per second of
# `nnuelab train --measure-steps` for chess768 with the default filter, in
# memory on the committed self-play of generations 1-3 (12.05M positions)
# and streamed through a 4M-position shuffle buffer from a dataset of
# COPIES times those files (one 24 MB binpack of the 12 shards, copied
# COPIES times into DIR; 42 copies = 504M positions, 1 GB), in alternating
# rounds; each run's maximum resident set from /usr/bin/time. Prints every
# run, the medians and the median of the per-round ratios. The streamed
# run's scan (reading, hashing and counting all 504M positions) is before
# the timed steps and is printed as its own wall time. Needs the machine to
# itself; about 4 minutes a round at 42 copies.
# Usage: bench/stream.sh [rounds] [steps] [copies] [dir]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
steps=${2:-1000}
copies=${3:-42}
dir=${4:-/tmp/nnuelab-stream}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 1; }
make >/dev/null
shards=(datasets/selfplay-gen1/*.binpack datasets/selfplay-gen2/*.binpack datasets/selfplay-gen3/*.binpack)
mkdir -p "$dir"
if [ ! -s "$dir/copy-01.binpack" ]; then
	cat "${shards[@]}" >"$dir/copy-01.binpack.tmp" && mv "$dir/copy-01.binpack.tmp" "$dir/copy-01.binpack"
fi
big=()
for ((i = 1; i <= copies; i++)); do
	f=$(printf '%s/copy-%02d.binpack' "$dir" "$i")
	[ -s "$f" ] || cp "$dir/copy-01.binpack" "$f"
	big+=("$f")
done
mem=$(IFS=,; echo "${shards[*]}")
str=$(IFS=,; echo "${big[*]}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {printf "%.10g\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
run() { # data buffer -> "positions/s rss_kb wall_s steps_s"
	/usr/bin/time -f "%M %e" -o "$out/time" ./nnuelab train --arch chess768 --data "$1" \
		--val-data datasets/fresh-val/fresh-sf500.bin --filter default --out "$out/net.nnue.zst" \
		--measure-steps "$steps" --shuffle-buffer "$2" --scan-cache off --threads 2 --quiet >"$out/log" 2>&1
	read -r rss wall <"$out/time"
	awk -v rss="$rss" -v wall="$wall" '/positions\/s/ {for (i = 1; i <= NF; i++) {if ($(i+1) == "positions/s,") pps = $i; if ($i == "in" && $(i+2) == "s") secs = $(i+1)}} END {print pps, rss, wall, secs}' "$out/log"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); CPU: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
declare -a pm ps rm_ rs ratios
for ((i = 1; i <= rounds; i++)); do
	read -r a ra wa sa < <(run "$mem" 0)
	read -r b rb wb sb < <(run "$str" 4000000)
	pm+=("$a") ps+=("$b") rm_+=("$ra") rs+=("$rb")
	ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')")
	echo "round $i: in memory $a positions/s (max RSS $((ra / 1024)) MB, ${wa} s in all); streamed $b positions/s (max RSS $((rb / 1024)) MB, ${wb} s in all, ${sb} s of them training steps)"
done
echo "median: in memory $(median "${pm[@]}") positions/s, streamed $(median "${ps[@]}"); streamed / in memory, median of rounds: $(median "${ratios[@]}") (${ratios[*]})"
echo "max RSS: in memory $(($(median "${rm_[@]}") / 1024)) MB, streamed $(($(median "${rs[@]}") / 1024)) MB (medians)"

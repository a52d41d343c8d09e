#!/usr/bin/env bash
# Lazy SMP on this machine (issue 28): nps of `nnuelab bench --threads 2`
# against `--threads 1` in alternating rounds (medians and the median of the
# per-round ratios; goal >= 1.8x on two free cores), then the Elo of two
# threads against one at 10+0.1 (SPRT [0, 10], at most 800 games), both with
# the default Arch. Needs the machine to itself: anything else running takes
# the second thread's core. About 1.5-3 hours. The match resumes: games
# already in bench/out/threads-2v1.pgn count and only the rest are played
# (docs/strength/threads-2v1-10+0.1.pgn.gz holds the games played so far;
# zcat it there to go on from them). rounds = 0 skips the nps rounds.
# Usage: bench/threads.sh [rounds] [arch]   (PGN and log in bench/out/)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
arch=${2:-leorik-3.1}
mkdir -p bench/out
make >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
r1=() r2=() ratio=()
for ((i = 1; i <= rounds; i++)); do
	a=$(./nnuelab bench --arch "$arch" --threads 1 13 2>&1 | awk '/^Nodes\/second/ {print $NF}')
	b=$(./nnuelab bench --arch "$arch" --threads 2 13 2>&1 | awk '/^Nodes\/second/ {print $NF}')
	r1+=("$a") r2+=("$b")
	ratio+=("$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')")
	echo "round $i: 1 thread $a nps, 2 threads $b nps, ratio ${ratio[-1]} (load $(cut -d' ' -f1 /proc/loadavg))"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
[ "$rounds" -gt 0 ] && echo "medians: 1 thread $(median "${r1[@]}") nps, 2 threads $(median "${r2[@]}") nps; per-round ratio median $(median "${ratio[@]}") (range $(printf '%s\n' "${ratio[@]}" | sort -g | head -1)-$(printf '%s\n' "${ratio[@]}" | sort -g | tail -1))"
./nnuelab match \
	-engine cmd=./nnuelab name="nnuelab-$arch-t2" option.Threads=2 \
	-engine cmd=./nnuelab name="nnuelab-$arch-t1" option.Threads=1 \
	-each tc=10+0.1 timemargin=50 option.Hash=16 option.Arch="$arch" \
	-games 2 -rounds 400 -concurrency 1 -sprt elo0=0 elo1=10 \
	-openings file=datasets/openings/balanced-8ply.epd order=random -seed 28 \
	-pgnout bench/out/threads-2v1.pgn -resume -ratinginterval 20
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

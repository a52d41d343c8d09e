#!/usr/bin/env bash
# nnuelab's search nps with a network against Stockfish 15.1's NNUE-only
# bench, alternating, several rounds, medians and ratios. Peers: the native
# AVX2 build of Stockfish 15.1 when $NNUELAB_SF151_AVX2 names one (optional:
# the output says whether it ran) and Debian's generic build (always). The net is
# exported from the installed Stockfish on first use (cached).
#
# Like the AVX2 peer (built for x86-64 with AVX2, BMI, POPCNT), nnuelab is
# built for the machine: GOAMD64=v3 when the CPU has the x86-64-v3 set
# (AVX2, BMI1/2, FMA, LZCNT, MOVBE), else Go's default v1; set GOAMD64 to
# choose. The NNUE kernels are AVX2 assembly either way; v3 lets the Go
# code (search, move generation) use POPCNT, TZCNT and friends inline.
# Usage: bench/nnue.sh [runs] [arch]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/games/stockfish >/dev/null || { echo "needs Stockfish: apt-get install -y stockfish" >&2; exit 1; }
if [ -z "${GOAMD64:-}" ] && [ "$(go env GOARCH)" = amd64 ]; then
	GOAMD64=v1
	flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
	v3=yes
	for f in avx2 bmi1 bmi2 fma abm movbe; do
		[[ " $flags " == *" $f "* ]] || v3=no
	done
	[ "$v3" = yes ] && GOAMD64=v3
	export GOAMD64
fi
echo "nnuelab built with GOAMD64=${GOAMD64:-default}"
mkdir -p bench/out
go build -o bench/out/nnuelab ./cmd/nnuelab
go run ./bench/benchvs -nnuelab bench/out/nnuelab -runs "${1:-5}" -arch "${2:-sf15.1}"

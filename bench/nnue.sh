#!/usr/bin/env bash
# nnuelab's search nps with a network against Stockfish 15.1's NNUE-only
# bench, alternating, several rounds, medians and ratios. Peers: the native
# AVX2 build of Stockfish 15.1 when one is found ($NNUELAB_SF151_AVX2, else
# ../shared/tools/stockfish-15.1-avx2 beside the repository; optional, the
# output says which) and Debian's generic build (always). The net is
# exported from the installed Stockfish on first use (cached).
# Usage: bench/nnue.sh [runs] [arch]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/games/stockfish >/dev/null || { echo "needs Stockfish: apt-get install -y stockfish" >&2; exit 1; }
mkdir -p bench/out
go build -o bench/out/nnuelab ./cmd/nnuelab
go run ./bench/benchvs -nnuelab bench/out/nnuelab -runs "${1:-5}" -arch "${2:-sf15.1}"

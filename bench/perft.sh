#!/usr/bin/env bash
# Times nnuelab's perft against Stockfish 15.1's `go perft` (start position
# depth 6, Kiwipete depth 5), alternating engines, several runs each, and
# prints medians and their ratio. Usage: bench/perft.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v /usr/games/stockfish >/dev/null || { echo "needs Stockfish: apt-get install -y stockfish" >&2; exit 1; }
mkdir -p bench/out
go build -o bench/out/nnuelab ./cmd/nnuelab
go run ./bench/perftvs -nnuelab bench/out/nnuelab -runs "${1:-5}"

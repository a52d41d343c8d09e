#!/usr/bin/env bash
# Are won endgames won without tablebases? Plays every position of
# bench/endgames/basic.epd (each a win for the side to move by the Syzygy
# tables) twice against Stockfish 15.1 with `nnuelab match`, once with each
# engine on the winning side, at a fixed number of nodes a move and with no
# adjudication, then tallies each engine's games on the winning side:
# converted (won), drawn by the fifty-move rule, drawn otherwise, lost; by
# material, with the id of every game not converted.
#
# Usage: bench/endgames.sh [ENGINE [PGN]]
#   ENGINE  the nnuelab binary to test (default ./nnuelab, built by make)
#   PGN     where the games go (default a temporary file); if it exists,
#           the match resumes from it (-resume) and a finished one is only
#           tallied
# Environment: NODES (20000), EPD (bench/endgames/basic.epd),
# SF (/usr/games/stockfish), CONCURRENCY (1), NAME (nnuelab), and OPTIONS,
# extra keys for the tested engine (e.g. "option.Arch=classical").
# Only the tally of an existing PGN (or .pgn.zst): bench/endgames.sh --tally PGN [EPD]
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${NODES:-20000}
epd=${EPD:-bench/endgames/basic.epd}
sf=${SF:-/usr/games/stockfish}
name=${NAME:-nnuelab}

# tally EPD PGN: the winning side of each game is the side to move of its
# start position (every position of the set is won for the side to move);
# the id and the table's verdict come from the EPD line with that position.
tally() {
	awk -v name="$name" '
	FNR == NR {
		if ($0 ~ /^[ \t]*(#|$)/) next
		key = $1 " " $2 " " $3 " " $4
		if (match($0, /id "[^"]*"/)) id[key] = substr($0, RSTART + 4, RLENGTH - 5); else id[key] = key
		if (!match($0, /wdl "[^"]*"/) || substr($0, RSTART + 5, RLENGTH - 6) != "win") {
			printf "%s: line %d: every position must be a win for the side to move (wdl \"win\")\n", FILENAME, FNR > "/dev/stderr"
			bad = 1; exit 1
		}
		next
	}
	function finish(   key, f, winner, eng, mat, k, outcome) {
		if (fen == "") return
		split(fen, f, " ")
		key = f[1] " " f[2] " " f[3] " " f[4]
		if (!(key in id)) {
			printf "%s: game %s starts from %s, which is not in the set\n", FILENAME, round, fen > "/dev/stderr"
			bad = 1; exit 1
		}
		winner = (f[2] == "w") ? white : black
		eng = (winner == name) ? "a" : "b"
		mat = id[key]; sub(/ .*/, "", mat)
		if (!(mat in seen)) { seen[mat] = 1; order[++nmat] = mat }
		want = (f[2] == "w") ? "1-0" : "0-1"
		if (res == want) outcome = "won"
		else if (res == "1/2-1/2" && reason ~ /fifty/) outcome = "fifty"
		else if (res == "1/2-1/2") outcome = "draw"
		else outcome = "lost"
		n[eng, mat, outcome]++; n[eng, "total", outcome]++
		n[eng, mat, "games"]++; n[eng, "total", "games"]++
		if (outcome != "won") missed[eng] = missed[eng] sprintf("  %s (game %s): %s {%s}\n", id[key], round, res, reason)
		fen = ""
	}
	/^\[Event / { finish(); fen = ""; reason = ""; text = "" }
	/^\[White / { white = $0; sub(/^\[White "/, "", white); sub(/"\]$/, "", white) }
	/^\[Black / { black = $0; sub(/^\[Black "/, "", black); sub(/"\]$/, "", black) }
	/^\[Round / { round = $0; gsub(/[^0-9]/, "", round) }
	/^\[Result / { res = $0; sub(/^\[Result "/, "", res); sub(/"\]$/, "", res) }
	/^\[FEN / { fen = $0; sub(/^\[FEN "/, "", fen); sub(/"\]$/, "", fen) }
	/^[^\[]/ { text = text " " $0; if (match(text, /\{[^}]*\} *(1-0|0-1|1\/2-1\/2|\*) *$/)) { reason = substr(text, RSTART + 1, RLENGTH); sub(/\}.*/, "", reason) } }
	END {
		if (bad) exit 1
		finish()
		if (n["a", "total", "games"] + n["b", "total", "games"] == 0) { print "no games of the set in " FILENAME > "/dev/stderr"; exit 1 }
		printf "%-8s | %-38s | %s\n", "", name " on the winning side", "Stockfish on the winning side"
		printf "%-8s | %5s %5s %7s %5s %5s | %5s %5s %7s %5s %5s\n", "material", "games", "won", "50-move", "draw", "lost", "games", "won", "50-move", "draw", "lost"
		order[++nmat] = "total"
		for (i = 1; i <= nmat; i++) {
			m = order[i]
			printf "%-8s | %5d %5d %7d %5d %5d | %5d %5d %7d %5d %5d\n", m, \
				n["a", m, "games"], n["a", m, "won"], n["a", m, "fifty"], n["a", m, "draw"], n["a", m, "lost"], \
				n["b", m, "games"], n["b", m, "won"], n["b", m, "fifty"], n["b", m, "draw"], n["b", m, "lost"]
		}
		if (missed["a"] != "") printf "not converted by %s:\n%s", name, missed["a"]
		if (missed["b"] != "") printf "not converted by Stockfish:\n%s", missed["b"]
	}' "$1" "$2"
}

if [ "${1:-}" = --tally ]; then
	[ $# -ge 2 ] || { echo "usage: bench/endgames.sh --tally PGN [EPD]" >&2; exit 2; }
	games=$2
	case $games in *.zst) # the kept games are compressed
		games=$(mktemp --suffix=.pgn)
		trap 'rm -f "$games"' EXIT
		zstd -q -dc "$2" > "$games" || { echo "bench/endgames.sh: cannot read $2" >&2; exit 1; } ;;
	esac
	tally "${3:-$epd}" "$games"
	exit
fi
[ -x "$sf" ] || { echo "no Stockfish at $sf (apt-get install -y stockfish)" >&2; exit 1; }
make >/dev/null
engine=${1:-./nnuelab}
pgn=${2:-}
if [ -z "$pgn" ]; then
	pgn=$(mktemp --suffix=.pgn)
	trap 'rm -f "$pgn"' EXIT
	rm -f "$pgn"
fi
positions=$(grep -cv '^[[:space:]]*\(#\|$\)' "$epd")
resume=()
[ -s "$pgn" ] && resume=(-resume)
# shellcheck disable=SC2086 # OPTIONS is a list of engine keys
./nnuelab match -engine cmd="$engine" name="$name" ${OPTIONS:-} -engine cmd="$sf" name=stockfish \
	-each nodes="$nodes" option.Hash=16 option.Threads=1 \
	-games 2 -rounds "$positions" -concurrency "${CONCURRENCY:-1}" \
	-openings file="$epd" order=sequential -event "endgames $(basename "$epd") nodes=$nodes" \
	-pgnout "$pgn" "${resume[@]}" -quiet >/dev/null
echo "$positions positions of $epd, $nodes nodes a move, $engine against $sf; games in $pgn"
tally "$epd" "$pgn"

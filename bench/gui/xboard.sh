#!/usr/bin/env bash
# A real GUI plays nnuelab: xboard (Debian) runs it through polyglot, its UCI
# adapter, under a virtual X server (Xvfb), for two games against Stockfish
# 15.1 at UCI_Elo 2700, standard chess and then Chess960 (xboard's variant
# fischerandom, which polyglot passes on as UCI_Chess960). It saves the games
# as PGN and a screenshot of the board during each match's first game.
#
#   bench/gui/xboard.sh [OUTDIR] [TC_MINUTES] [INC_SECONDS]
#
# Writes OUTDIR/xboard-{standard,chess960}.{pgn,png} (default docs/gui) and
# the xboard logs beside them. Installs xboard, polyglot, xvfb and
# imagemagick when they are missing (Debian); builds nnuelab with make.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/docs/gui}
tc=${2:-1}
inc=${3:-1}
export PATH=$PATH:/usr/games
need=()
command -v xboard >/dev/null || need+=(xboard)
command -v polyglot >/dev/null || need+=(polyglot)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v xwd >/dev/null || need+=(x11-apps)
[ -x /usr/bin/convert ] || need+=(imagemagick)
[ -x /usr/games/stockfish ] || need+=(stockfish)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
make -C "$top" >/dev/null
mkdir -p "$out"
work=$(mktemp -d)
trap 'kill $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
cp "$top/nnuelab" "$work/nnuelab"

display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1024x768x24 >/dev/null 2>&1 &
xvfb=$!
sleep 2

# play NAME [xboard flags...]: a two-game match, a screenshot after 40 s.
play() {
  local name=$1
  shift
  rm -f "$out/xboard-$name.pgn"
  DISPLAY=$display xboard -fcp "$work/nnuelab" -fUCI -fd "$work" \
    -scp /usr/games/stockfish -sUCI -sd "$work" \
    -secondOptions "UCI_LimitStrength=true,UCI_Elo=2700" \
    -tc "$tc" -inc "$inc" -mg 2 -sgf "$out/xboard-$name.pgn" -xexit \
    -size medium -soundMove "" -soundIcsAlarm "" -autoCallFlag true "$@" \
    >"$work/xboard-$name.log" 2>&1 &
  local gui=$!
  sleep 40
  DISPLAY=$display xwd -root -silent | convert xwd:- -crop 526x626+0+0 +repage -strip -colors 96 "PNG8:$out/xboard-$name.png"
  wait $gui || true
  grep -v '^ALSA\|^aplay' "$work/xboard-$name.log" >"$out/xboard-$name.log" || true
  local games
  games=$(grep -c '^\[Result' "$out/xboard-$name.pgn" || true)
  echo "$name: $games games in $out/xboard-$name.pgn, screenshot $out/xboard-$name.png"
  [ "$games" = 2 ] || { echo "expected 2 games" >&2; exit 1; }
}

play standard
play chess960 -variant fischerandom

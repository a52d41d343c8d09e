package match

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

// recordFrom plays UCI moves from fen and returns the game record the
// runner would write, with the SAN it produced.
func recordFrom(t *testing.T, fen, moves string, r result, reason string) *gameRecord {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	g := &gameRecord{
		number: 3, white: "Engine \"A\"", black: `back\slash`, aWhite: true,
		startFEN: p.FEN(), fullmove: p.FullmoveNumber(), blackFirst: p.SideToMove() == board.Black,
		started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), timeControl: "10+0.1",
		result: r, reason: reason, termination: termNormal,
	}
	for i, s := range strings.Fields(moves) {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		c := "+0.10/5 0.020s"
		if i == 0 {
			c = "book"
		}
		g.moves = append(g.moves, playedMove{san: p.SAN(m), comment: c})
		p.MakeMove(m)
	}
	return g
}

func TestPGNOutput(t *testing.T) {
	tests := []struct {
		name   string
		fen    string
		moves  string
		sans   []string
		result result
		reason string
		starts string // the movetext begins so
	}{
		{"castling both ways", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", "e1g1 e8c8",
			[]string{"O-O", "O-O-O"}, noResult, "", "1. O-O {book} 1... O-O-O"},
		{"promotion with check", "8/4P3/8/7k/8/8/8/4K3 w - - 0 1", "e7e8q",
			[]string{"e8=Q+"}, noResult, "", "1. e8=Q+"},
		{"capturing under-promotion", "3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7d8n",
			[]string{"exd8=N"}, noResult, "", "1. exd8=N"},
		{"scholar's mate", board.StartFEN, "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7",
			[]string{"e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"}, whiteWins, "White mates", "1. e4 {book} 1... e5"},
		{"disambiguation", "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "b1d2",
			[]string{"Nbd2"}, noResult, "", "1. Nbd2"},
		{"black moves first", "4k3/8/8/8/8/7r/4P3/4K3 b - - 3 12", "h3h2 e2e4 h2h8",
			[]string{"Rh2", "e4", "Rh8"}, draw, "Draw by adjudication", "12... Rh2 {book} 13. e4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := recordFrom(t, tt.fen, tt.moves, tt.result, tt.reason)
			text := g.pgn("ev", "site")
			for i, want := range tt.sans {
				if g.moves[i].san != want {
					t.Errorf("move %d SAN %q, want %q", i+1, g.moves[i].san, want)
				}
			}
			body := text[strings.Index(text, "\n\n")+2:]
			if !strings.HasPrefix(body, tt.starts) {
				t.Errorf("movetext starts %q, want %q", body[:min(len(body), 40)], tt.starts)
			}
			for _, line := range strings.Split(text, "\n") {
				if len(line) > 80 {
					t.Errorf("line longer than 80: %q", line)
				}
			}
			if !strings.HasSuffix(text, " "+tt.result.String()+"\n\n") && !strings.HasSuffix(text, "\n"+tt.result.String()+"\n\n") {
				t.Errorf("movetext does not end with the result %s:\n%s", tt.result, text)
			}
			// Parse it back: tags, SAN list and replay.
			games, err := readPGN(bytes.NewReader([]byte(text)), "out.pgn")
			if err != nil || len(games) != 1 {
				t.Fatalf("readPGN = %d games, %v\n%s", len(games), err, text)
			}
			pg := games[0]
			wantTags := map[string]string{"Event": "ev", "Site": "site", "Date": "2026.01.02", "Round": "3",
				"White": `Engine "A"`, "Black": `back\slash`, "Result": tt.result.String(), "TimeControl": "10+0.1",
				"Termination": "normal"}
			if tt.fen != board.StartFEN {
				wantTags["FEN"] = g.startFEN
				wantTags["SetUp"] = "1"
			} else if _, ok := pg.tags["FEN"]; ok {
				t.Error("FEN tag written for the standard start position")
			}
			for k, v := range wantTags {
				if pg.tags[k] != v {
					t.Errorf("tag %s = %q, want %q", k, pg.tags[k], v)
				}
			}
			if strings.Join(pg.moves, " ") != strings.Join(tt.sans, " ") {
				t.Errorf("moves read back %v, want %v", pg.moves, tt.sans)
			}
			if tt.reason != "" && !strings.Contains(text, "{"+tt.reason+"} "+tt.result.String()) {
				t.Errorf("no {%s} before the result:\n%s", tt.reason, text)
			}
			p, _ := board.ParseFEN(tt.fen)
			for _, san := range pg.moves {
				m, err := p.ParseSAN(san)
				if err != nil {
					t.Fatalf("parseSAN(%q): %v", san, err)
				}
				p.MakeMove(m)
			}
			want := playUCI(t, tt.fen, tt.moves)
			if p.FEN() != want.FEN() {
				t.Errorf("replayed to %s, want %s", p.FEN(), want.FEN())
			}
		})
	}
}

// Long games wrap at 80 columns and keep numbering right after comments.
func TestPGNLongGame(t *testing.T) {
	moves := strings.Repeat("g1f3 g8f6 f3g1 f6g8 ", 10)
	g := recordFrom(t, board.StartFEN, moves, draw, "Draw by 3-fold repetition")
	text := g.pgn("e", "s")
	for _, line := range strings.Split(text, "\n") {
		if len(line) > 80 {
			t.Errorf("line of %d characters: %q", len(line), line)
		}
	}
	games, err := readPGN(strings.NewReader(text+text), "x")
	if err != nil || len(games) != 2 || len(games[1].moves) != 40 {
		t.Fatalf("two concatenated games read back as %d games, %v", len(games), err)
	}
	if !strings.Contains(strings.Join(strings.Fields(text), " "), "20... Ng8 {+0.10/5 0.020s} {Draw by 3-fold repetition} 1/2-1/2") {
		t.Errorf("unexpected ending:\n%s", text)
	}
}

package datagen

import (
	"context"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets/internal/splitmix"
	"github.com/nnuelab/nnuelab/engine/board"
)

// TestRandomBackRank: every drawn back rank is a Chess960 one (bishops on
// squares of both colours, the king between the rooks), and 30,000 draws
// reach all 960.
func TestRandomBackRank(t *testing.T) {
	r := splitmix.New(1, 2)
	seen := map[[8]byte]bool{}
	for range 30000 {
		rank := randomBackRank(r)
		s := string(rank[:])
		b1, b2 := strings.IndexByte(s, 'B'), strings.LastIndexByte(s, 'B')
		r1, k, r2 := strings.IndexByte(s, 'R'), strings.IndexByte(s, 'K'), strings.LastIndexByte(s, 'R')
		if strings.Count(s, "N") != 2 || strings.Count(s, "Q") != 1 || b1 == b2 || (b1+b2)%2 == 0 || !(r1 < k && k < r2) {
			t.Fatalf("%s is not a Chess960 back rank", s)
		}
		seen[rank] = true
	}
	if len(seen) != 960 {
		t.Fatalf("%d distinct back ranks in 30,000 draws, want 960", len(seen))
	}
}

// TestStartPositions: chess960 and dfrc starts parse, mirror (chess960) or
// not always (dfrc), carry both sides' castling rights, and datagen plays
// games from them; a book with them is refused.
func TestStartPositions(t *testing.T) {
	r := splitmix.New(3, 4)
	mirrored := 0
	for _, kind := range []string{StartChess960, StartDFRC} {
		for range 200 {
			fen := startFEN(kind, r)
			p, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatalf("%s: %v", fen, err)
			}
			if p.CountLegal() == 0 {
				t.Fatalf("%s: no legal move", fen)
			}
			f := strings.Fields(fen)
			if len(f[2]) != 4 {
				t.Fatalf("%s: castling rights %q, want four", fen, f[2])
			}
			ranks := strings.Split(f[0], "/")
			if ranks[0] == strings.ToLower(ranks[7]) {
				mirrored++
			} else if kind == StartChess960 {
				t.Fatalf("%s: a chess960 start is mirrored", fen)
			}
		}
	}
	if mirrored >= 400 || mirrored < 200 {
		t.Fatalf("%d of 400 starts mirrored: want the 200 chess960 ones and few dfrc ones", mirrored)
	}
	cfg := DefaultConfig()
	cfg.Arch, cfg.Games, cfg.Nodes, cfg.SoftNodes, cfg.Start, cfg.Keep = "classical", 2, 2000, 500, StartDFRC, KeepAll
	pl, err := newPlayer(&cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for g := range uint64(2) {
		game, err := pl.play(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if len(game.Records) == 0 || game.Records[0].FullmoveNumber() > 6 {
			t.Fatalf("game %d: %d records", g, len(game.Records))
		}
	}
	cfg.Book = "openings.epd"
	if err := cfg.check(); err == nil {
		t.Fatal("a dfrc start with a book was accepted")
	}
	cfg.Book, cfg.SoftNodes, cfg.Nodes = "", 3000, 2000
	if err := cfg.check(); err == nil {
		t.Fatal("soft nodes above the hard limit were accepted")
	}
}

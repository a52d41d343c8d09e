package board

import "testing"

func TestSAN(t *testing.T) {
	tests := []struct{ fen, uci, san string }{
		{StartFEN, "e2e4", "e4"},
		{StartFEN, "g1f3", "Nf3"},
		// Castling both ways, standard and Chess960.
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "O-O"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", "O-O-O"},
		{"1r2k1r1/8/8/8/8/8/6P1/1R2K1R1 w GBgb - 0 1", "e1g1", "O-O"},
		{"1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", "e1b1", "O-O-O"},
		// Disambiguation by file, by rank, by both.
		{"4k3/8/8/8/8/8/8/N1N1K3 w - - 0 1", "a1b3", "Nab3"},
		{"4k3/8/8/1N6/8/1N6/8/4K3 w - - 0 1", "b3d4", "N3d4"},
		{"8/7k/8/8/Q2Q4/8/8/Q3K3 w - - 0 1", "a4d1", "Qa4d1"},
		// A pinned second knight does not need disambiguating.
		{"4k3/8/8/8/8/8/8/2N1K1Nr w - - 0 1", "c1e2", "Ne2"},
		// Captures, en passant, promotions, checks and mates.
		{"4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", "exd5"},
		{"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", "exd6"},
		{"3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7d8q", "exd8=Q+"},
		{"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8n", "a8=N"},
		{"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", "a8=Q+"},
		{"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", "Ra8#"},
		{"rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3", "d1h5", "Qh5#"},
	}
	for _, tc := range tests {
		p, err := ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.ParseUCIMove(tc.uci)
		if err != nil {
			t.Fatalf("%s: %v", tc.fen, err)
		}
		if got := p.SAN(m); got != tc.san {
			t.Errorf("%s %s: SAN %q, want %q", tc.fen, tc.uci, got, tc.san)
		}
	}
}

func TestUCICastlingNotation(t *testing.T) {
	p, _ := ParseFEN("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	m, err := p.ParseUCIMove("e1g1")
	if err != nil || m.Kind() != Castling {
		t.Fatalf("e1g1: %v %v", m, err)
	}
	if p.UCI(m) != "e1g1" {
		t.Errorf("standard castling printed %q", p.UCI(m))
	}
	if m2, err := p.ParseUCIMove("e1h1"); err != nil || m2 != m {
		t.Errorf("king-takes-rook e1h1 not accepted: %v", err)
	}
	p.SetChess960(true)
	if p.UCI(m) != "e1h1" {
		t.Errorf("UCI_Chess960 castling printed %q, want e1h1", p.UCI(m))
	}
	if _, err := p.ParseUCIMove("e1g1"); err == nil {
		t.Errorf("e1g1 accepted in Chess960 mode, where it is not a castling move")
	}
	// Chess960 king on f1: f1g1 is a plain king move, castling is f1h1.
	q, _ := ParseFEN("4k3/8/8/8/8/8/8/5K1R w H - 0 1")
	mv, err := q.ParseUCIMove("f1g1")
	if err != nil || mv.Kind() == Castling {
		t.Errorf("f1g1 should be a king step, got %v %v", mv, err)
	}
	mv, err = q.ParseUCIMove("f1h1")
	if err != nil || mv.Kind() != Castling {
		t.Errorf("f1h1 should castle, got %v %v", mv, err)
	}
}

func TestParseUCIMoveErrors(t *testing.T) {
	p := StartPosition()
	for _, s := range []string{"", "e2", "e2e9", "i2e4", "e2e4x", "e7e8k", "e2e5", "e1g1"} {
		if _, err := p.ParseUCIMove(s); err == nil {
			t.Errorf("ParseUCIMove(%q) accepted", s)
		}
	}
}

package board

import (
	"strings"
	"testing"
)

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

// TestParseSAN: SAN as PGN files write it, with the variations they use,
// and the errors it gives for what names no legal move.
func TestParseSAN(t *testing.T) {
	tests := []struct {
		fen, san, uci string
	}{
		{StartFEN, "e4", "e2e4"},
		{StartFEN, "Nf3", "g1f3"},
		{StartFEN, "Ng1-f3", "g1f3"},
		{StartFEN, "e2-e4", "e2e4"},
		{StartFEN, "Nf3!?", "g1f3"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O", "e1g1"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "0-0-0", "e1c1"},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "O-O-O+", "e8c8"},
		{"3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "exd8=N", "e7d8n"},
		{"3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "exd8N", "e7d8n"},
		{"3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8=Q", "e7e8q"},
		{"4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nbd2", "b1d2"},
		{"4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nfd2", "f3d2"},
		{"4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nb1d2", "b1d2"},
		{"4k3/8/8/8/N7/8/8/N3K3 w - - 0 1", "N1b3", "a1b3"},
		{"rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3", "dxe3", "d4e3"},
	}
	for _, tt := range tests {
		p, err := ParseFEN(tt.fen)
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.ParseSAN(tt.san)
		if err != nil || p.UCI(m) != tt.uci {
			t.Errorf("ParseSAN(%s, %q) = %s, %v; want %s", tt.fen, tt.san, p.UCI(m), err, tt.uci)
		}
	}
	bad := []struct{ fen, san, want string }{
		{"4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2", "ambiguous"},
		{StartFEN, "e5", "not legal"},
		{StartFEN, "O-O", "castling"},
		{StartFEN, "Qh9", "bad destination"},
		{StartFEN, "", "not a move"},
		{StartFEN, "Nxyz3", "bad"},
		{"3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8=K", "promotion piece"},
		{"3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e8", "not legal"},
	}
	for _, tt := range bad {
		p, _ := ParseFEN(tt.fen)
		if _, err := p.ParseSAN(tt.san); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSAN(%q) error = %v, want %q", tt.san, err, tt.want)
		}
	}
}

// FuzzParseSAN: whatever the text, ParseSAN either names a legal move,
// whose own SAN reads back as the same move, or returns an error; it never
// panics.
func FuzzParseSAN(f *testing.F) {
	for _, s := range []string{"e4", "Nbd2", "exd8=N", "O-O-O+", "0-0", "e2-e4", "Qh9", "", "Nxyz3", "=", "e8=", "a"} {
		f.Add(s)
	}
	positions := []string{
		StartFEN,
		"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
		"3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1",
		"4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1",
	}
	f.Fuzz(func(t *testing.T, san string) {
		for _, fen := range positions {
			p, err := ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			m, err := p.ParseSAN(san)
			if err != nil {
				continue
			}
			if !p.IsLegal(m) {
				t.Fatalf("%s: ParseSAN(%q) = %s, not legal", fen, san, p.UCI(m))
			}
			if back, err := p.ParseSAN(p.SAN(m)); err != nil || back != m {
				t.Fatalf("%s: ParseSAN(%q) = %s, whose SAN %q reads back as %s (%v)", fen, san, p.UCI(m), p.SAN(m), p.UCI(back), err)
			}
		}
	})
}

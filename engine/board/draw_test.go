package board

import "testing"

func TestInsufficientMaterial(t *testing.T) {
	tests := []struct {
		fen  string
		want bool
	}{
		{"8/8/4k3/8/8/3K4/8/8 w - - 0 1", true},      // KvK
		{"8/8/4k3/8/8/3KN3/8/8 w - - 0 1", true},     // KNvK
		{"8/8/4kn2/8/8/3K4/8/8 b - - 0 1", true},     // KvKN
		{"8/8/4k3/8/8/3KB3/8/8 w - - 0 1", true},     // KBvK
		{"8/8/4k3/8/8/2BK4/1B6/8 w - - 0 1", true},   // KBBvK, bishops c3 and b2: both dark
		{"8/8/3bk3/8/8/3K4/1B6/8 w - - 0 1", true},   // KBvKB, b2 and d6 both dark
		{"8/8/2b1k3/8/8/3K4/1B6/8 w - - 0 1", false}, // KBvKB, b2 dark, c6 light
		{"8/8/4k3/8/8/3K4/1BB5/8 w - - 0 1", false},  // KBBvK on both colours
		{"8/8/4k3/8/8/3KN3/5N2/8 w - - 0 1", false},  // KNNvK (helpmate possible)
		{"8/8/4kn2/8/8/3KN3/8/8 w - - 0 1", false},   // KNvKN
		{"8/8/4k3/8/8/3KN3/1B6/8 w - - 0 1", false},  // KBNvK
		{"8/8/4k3/8/8/3K4/4P3/8 w - - 0 1", false},   // KPvK
		{"8/8/4k3/8/8/3K4/R7/8 w - - 0 1", false},    // KRvK
		{"8/8/4k3/8/8/3K4/4q3/8 w - - 0 1", false},   // KvKQ
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", false},
	}
	for _, tt := range tests {
		p, err := ParseFEN(tt.fen)
		if err != nil {
			t.Fatalf("%s: %v", tt.fen, err)
		}
		if got := p.InsufficientMaterial(); got != tt.want {
			t.Errorf("InsufficientMaterial(%s) = %v, want %v", tt.fen, got, tt.want)
		}
	}
}

package match

import (
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

func TestParseTimeControl(t *testing.T) {
	tests := []struct {
		in      string
		want    TimeControl
		str     string
		wantErr bool
	}{
		{in: "10+0.1", want: TimeControl{Base: 10 * time.Second, Increment: 100 * time.Millisecond}, str: "10+0.1"},
		{in: "40/60", want: TimeControl{Moves: 40, Base: time.Minute}, str: "40/60"},
		{in: "1:30+1", want: TimeControl{Base: 90 * time.Second, Increment: time.Second}, str: "90+1"},
		{in: "40/2:00+0.5", want: TimeControl{Moves: 40, Base: 2 * time.Minute, Increment: 500 * time.Millisecond}, str: "40/120+0.5"},
		{in: "0+0.5", want: TimeControl{Increment: 500 * time.Millisecond}, str: "0+0.5"},
		{in: "8", want: TimeControl{Base: 8 * time.Second}, str: "8"},
		{in: "inf", want: TimeControl{}, str: "inf"},
		{in: "", wantErr: true},
		{in: "0", wantErr: true},
		{in: "abc", wantErr: true},
		{in: "10+", wantErr: true},
		{in: "10+-1", wantErr: true},
		{in: "-5", wantErr: true},
		{in: "0/60", wantErr: true},
		{in: "x/60", wantErr: true},
		{in: "1:75", wantErr: true},
		{in: "NaN", wantErr: true},
		{in: "1e99", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseTimeControl(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseTimeControl(%q) = %+v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseTimeControl(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		if s := got.String(); s != tt.str {
			t.Errorf("String() = %q, want %q", s, tt.str)
		}
	}
}

func TestClock(t *testing.T) {
	ms := time.Millisecond
	c := newClock(TimeControl{Base: 1000 * ms, Increment: 100 * ms})
	steps := []struct {
		spend, margin, left time.Duration
		ok                  bool
	}{
		{300 * ms, 0, 800 * ms, true}, // 1000-300+100
		{800 * ms, 0, 100 * ms, true}, // exactly all the time left: not a loss
		{150 * ms, 0, 0, false},       // 50 ms over, no margin: flag
	}
	for i, s := range steps {
		ok := c.spend(s.spend, s.margin)
		if ok != s.ok || (ok && c.left != s.left) {
			t.Fatalf("step %d: spend(%v) = %v, left %v; want %v, %v", i, s.spend, ok, c.left, s.ok, s.left)
		}
	}
	// A margin absorbs a small overrun; the clock stays at zero plus increment.
	c = newClock(TimeControl{Base: 100 * ms, Increment: 10 * ms})
	if !c.spend(140*ms, 50*ms) || c.left != 10*ms {
		t.Errorf("overrun within margin: left %v", c.left)
	}
	if c.spend(70*ms, 50*ms) {
		t.Error("overrun beyond margin did not flag")
	}
	// Periods: 2 moves in 1 s; after the second move the next second comes.
	c = newClock(TimeControl{Moves: 2, Base: time.Second})
	c.spend(400*ms, 0)
	if c.movesLeft != 1 || c.left != 600*ms {
		t.Errorf("after move 1: %d moves, %v left", c.movesLeft, c.left)
	}
	c.spend(500*ms, 0)
	if c.movesLeft != 2 || c.left != 1100*ms {
		t.Errorf("after move 2: %d moves, %v left; want 2, 1.1s", c.movesLeft, c.left)
	}
}

func TestGoCommand(t *testing.T) {
	clockLimits := Limits{TC: TimeControl{Base: 10 * time.Second, Increment: 100 * time.Millisecond}, Margin: 50 * time.Millisecond}
	periodLimits := Limits{TC: TimeControl{Moves: 40, Base: time.Minute}}
	tests := []struct {
		name      string
		stm       board.Color
		me, opp   Limits
		want      string
		wantLimit time.Duration
		timed     bool
	}{
		{"clock white", board.White, clockLimits, clockLimits, "go wtime 10000 winc 100 btime 10000 binc 100", 10050 * time.Millisecond, true},
		{"clock black", board.Black, clockLimits, clockLimits, "go wtime 10000 winc 100 btime 10000 binc 100", 10050 * time.Millisecond, true},
		{"periods", board.White, periodLimits, periodLimits, "go wtime 60000 winc 0 btime 60000 binc 0 movestogo 40", time.Minute, true},
		{"movetime", board.White, Limits{MoveTime: 500 * time.Millisecond, Margin: 20 * time.Millisecond}, Limits{}, "go movetime 500", 520 * time.Millisecond, true},
		{"nodes", board.Black, Limits{Nodes: 5000, Timeout: 7 * time.Second}, Limits{}, "go nodes 5000", 7 * time.Second, false},
		{"depth", board.White, Limits{Depth: 9, Timeout: time.Second}, Limits{}, "go depth 9", time.Second, false},
		{"clock and nodes", board.White, Limits{TC: clockLimits.TC, Nodes: 100}, Limits{Nodes: 100}, "go wtime 10000 winc 100 nodes 100", 10 * time.Second, true},
	}
	for _, tt := range tests {
		me := &player{limits: &tt.me, clock: newClock(tt.me.TC)}
		opp := &player{limits: &tt.opp, clock: newClock(tt.opp.TC)}
		got, limit, timed := goCommand(tt.stm, me, opp)
		if got != tt.want || limit != tt.wantLimit || timed != tt.timed {
			t.Errorf("%s: goCommand = %q, %v, %v; want %q, %v, %v", tt.name, got, limit, timed, tt.want, tt.wantLimit, tt.timed)
		}
	}
	// The black clock comes second whoever moves.
	me := &player{limits: &clockLimits, clock: clock{tc: clockLimits.TC, left: 3 * time.Second}}
	opp := &player{limits: &clockLimits, clock: clock{tc: clockLimits.TC, left: 7 * time.Second}}
	if got, _, _ := goCommand(board.Black, me, opp); !strings.HasPrefix(got, "go wtime 7000 winc 100 btime 3000") {
		t.Errorf("black to move: %q", got)
	}
}

func TestSpendTime(t *testing.T) {
	st := Limits{MoveTime: 200 * time.Millisecond, Margin: 100 * time.Millisecond}
	p := &player{limits: &st}
	if !spendTime(p, 250*time.Millisecond) {
		t.Error("250 ms on st=0.2 with 100 ms margin flagged")
	}
	if spendTime(p, 301*time.Millisecond) {
		t.Error("301 ms on st=0.2 with 100 ms margin did not flag")
	}
	n := Limits{Nodes: 10}
	if !spendTime(&player{limits: &n}, time.Hour) {
		t.Error("node-limited move flagged")
	}
}

package search

import (
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

func TestTimeLimits(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name             string
		lim              Limits
		minSoft, maxHard time.Duration
	}{
		{"10s+0.1s start", Limits{UseClock: true, Time: [2]time.Duration{ms(10000), ms(10000)}, Inc: [2]time.Duration{ms(100), ms(100)}}, ms(300), ms(2500)},
		{"10s+0.1s low clock", Limits{UseClock: true, Time: [2]time.Duration{ms(300), ms(300)}, Inc: [2]time.Duration{ms(100), ms(100)}}, ms(20), ms(73)},
		{"1s+0.01s start", Limits{UseClock: true, Time: [2]time.Duration{ms(1000), ms(1000)}, Inc: [2]time.Duration{ms(10), ms(10)}}, ms(20), ms(250)},
		{"1s+0.01s nearly out", Limits{UseClock: true, Time: [2]time.Duration{ms(30), ms(30)}, Inc: [2]time.Duration{ms(10), ms(10)}}, ms(1), ms(5)},
		{"clock below overhead", Limits{UseClock: true, Time: [2]time.Duration{ms(5), ms(5)}}, ms(1), ms(1)},
		{"negative clock", Limits{UseClock: true, Time: [2]time.Duration{-ms(50), -ms(50)}}, ms(1), ms(1)},
		{"one move to the control", Limits{UseClock: true, Time: [2]time.Duration{ms(2000), ms(2000)}, MovesToGo: 1}, ms(300), ms(1493)},
		{"40 moves in 60s", Limits{UseClock: true, Time: [2]time.Duration{ms(60000), ms(60000)}, MovesToGo: 40}, ms(1300), ms(6000)},
		{"movetime", Limits{MoveTime: ms(500)}, 0, ms(490)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSearcher(t)
			s.pos = board.StartPosition()
			tc.lim.MoveOverhead = ms(10)
			s.setTime(tc.lim, 20)
			if s.softLimit < tc.minSoft && tc.minSoft > 0 {
				t.Errorf("soft %v < %v", s.softLimit, tc.minSoft)
			}
			if s.hardLimit > tc.maxHard {
				t.Errorf("hard %v > %v", s.hardLimit, tc.maxHard)
			}
			if s.softLimit > s.hardLimit {
				t.Errorf("soft %v > hard %v", s.softLimit, s.hardLimit)
			}
		})
	}
}

// TestClockSimulation plays out sudden-death games on a simulated clock
// in which every search takes its whole hard limit plus a latency the
// engine does not see, and checks that the clock never runs out.
func TestClockSimulation(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct{ base, inc, latency time.Duration }{
		{ms(10000), ms(100), ms(5)},
		{ms(1000), ms(10), ms(5)},
		{ms(180000), ms(2000), ms(20)},
	} {
		s := newSearcher(t)
		s.pos = board.StartPosition()
		clock := tc.base
		for move := 0; move < 300; move++ {
			s.setTime(Limits{UseClock: true, Time: [2]time.Duration{clock, clock}, Inc: [2]time.Duration{tc.inc, tc.inc}, MoveOverhead: ms(10)}, 20)
			clock -= s.hardLimit + tc.latency
			if clock <= 0 {
				t.Fatalf("%v+%v: flagged at move %d", tc.base, tc.inc, move+1)
			}
			clock += tc.inc
		}
	}
}

// TestClockSimulationMovesToGo plays out games at repeating controls (40
// moves in 60 s, 40 in 10 s) on a simulated clock: movestogo counts down
// from 40 and the control's time is added after its 40th move. Every
// search takes twice its soft limit (the 90th percentile of the ladder's
// games) plus latency the engine does not see. Over 300 moves the clock
// must keep at least 0.5% of a control's time (planned over exactly
// movestogo, it fell to 31 ms of 60 s).
func TestClockSimulationMovesToGo(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct{ period, latency time.Duration }{
		{ms(60000), ms(20)},
		{ms(10000), ms(5)},
	} {
		s := newSearcher(t)
		s.pos = board.StartPosition()
		clock, least := tc.period, tc.period
		for move := 0; move < 300; move++ {
			togo := 40 - move%40
			s.setTime(Limits{UseClock: true, Time: [2]time.Duration{clock, clock}, MovesToGo: togo, MoveOverhead: ms(10)}, 20)
			clock -= min(2*s.softLimit, s.hardLimit) + tc.latency
			least = min(least, clock)
			if togo == 1 {
				clock += tc.period
			}
		}
		t.Logf("40/%v: least clock %v", tc.period, least)
		if least < tc.period/200 {
			t.Errorf("40/%v: the clock fell to %v", tc.period, least)
		}
	}
}

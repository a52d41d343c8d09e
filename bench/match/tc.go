package match

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TimeControl is a chess clock setting in cutechess-cli notation:
// "moves/time+increment", where moves (optional) is the length of a period
// after which time is added again, time is seconds or minutes:seconds and
// increment is seconds. "inf" means no clock. The zero value means no clock.
type TimeControl struct {
	Moves     int           // moves per period; 0 = the whole game
	Base      time.Duration // time per period
	Increment time.Duration // added after every move
}

// Enabled reports whether the time control runs a clock.
func (tc TimeControl) Enabled() bool { return tc.Base > 0 || tc.Increment > 0 }

// ParseTimeControl parses "40/60", "10+0.1", "1:30+1", "0+0.5" or "inf".
func ParseTimeControl(s string) (TimeControl, error) {
	var tc TimeControl
	orig := s
	if s == "inf" || s == "infinite" {
		return tc, nil
	}
	bad := func(why string) (TimeControl, error) {
		return TimeControl{}, fmt.Errorf("bad time control %q: %s (want [moves/]seconds[+increment], e.g. 10+0.1, 40/60 or 1:30+1)", orig, why)
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		m, err := strconv.Atoi(s[:i])
		if err != nil || m <= 0 || m > 1000 {
			return bad("moves per period must be a positive integer")
		}
		tc.Moves = m
		s = s[i+1:]
	}
	inc, hasInc := "", false
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s, inc, hasInc = s[:i], s[i+1:], true
	}
	var base float64
	if i := strings.IndexByte(s, ':'); i >= 0 {
		mins, err1 := strconv.ParseFloat(s[:i], 64)
		secs, err2 := strconv.ParseFloat(s[i+1:], 64)
		if err1 != nil || err2 != nil || mins < 0 || secs < 0 || secs >= 60 {
			return bad("minutes:seconds expected")
		}
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		base = float64(mins*60) + secs
	} else {
		b, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad("base time must be a number of seconds")
		}
		base = b
	}
	if !(base >= 0 && base <= 1e6) {
		return bad("base time out of range")
	}
	tc.Base = seconds(base)
	if hasInc {
		i, err := strconv.ParseFloat(inc, 64)
		if err != nil || !(i >= 0 && i <= 1e5) {
			return bad("increment must be a non-negative number of seconds")
		}
		tc.Increment = seconds(i)
	}
	if !tc.Enabled() {
		return bad("no time at all")
	}
	return tc, nil
}

// String returns the time control in the notation ParseTimeControl reads,
// which is also the PGN TimeControl tag's ("40/60", "10+0.1").
func (tc TimeControl) String() string {
	if !tc.Enabled() {
		return "inf"
	}
	s := formatSeconds(tc.Base)
	if tc.Moves > 0 {
		s = strconv.Itoa(tc.Moves) + "/" + s
	}
	if tc.Increment > 0 {
		s += "+" + formatSeconds(tc.Increment)
	}
	return s
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

func formatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// clock is one side's chess clock during a game.
type clock struct {
	tc        TimeControl
	left      time.Duration
	movesLeft int // moves until the next period; 0 when the period is the game
}

func newClock(tc TimeControl) clock {
	return clock{tc: tc, left: tc.Base, movesLeft: tc.Moves}
}

// spend charges one move's thinking time. It reports false if the flag
// fell, that is the move took more than the time left plus margin. On time
// it adds the increment and, at the end of a period, the next period's time.
func (c *clock) spend(elapsed, margin time.Duration) bool {
	c.left -= elapsed
	if c.left < -margin {
		return false
	}
	if c.left < 0 {
		c.left = 0
	}
	c.left += c.tc.Increment
	if c.tc.Moves > 0 {
		c.movesLeft--
		if c.movesLeft == 0 {
			c.left += c.tc.Base
			c.movesLeft = c.tc.Moves
		}
	}
	return true
}

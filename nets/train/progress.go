package train

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/nets/train/vec"
)

// progress prints the training progress line: redrawn in place on a
// terminal (at most 5 times a second), else one line every `every`.
type progress struct {
	w        io.Writer
	terminal bool
	every    time.Duration
	last     time.Time
	width    int
}

func (p *progress) update(line string) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if p.terminal {
		if now.Sub(p.last) < 200*time.Millisecond {
			return
		}
		p.last = now
		pad := max(p.width-len(line), 0)
		fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
		p.width = len(line)
		return
	}
	every := p.every
	if every <= 0 {
		every = 30 * time.Second
	}
	if p.last.IsZero() {
		p.last = now // the first line after one interval
		return
	}
	if now.Sub(p.last) >= every {
		p.last = now
		fmt.Fprintln(p.w, line)
	}
}

// clear removes the in-place line before a permanent one.
func (p *progress) clear() {
	if p.w != nil && p.terminal && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

// bar draws a progress bar of n cells for fraction f.
func bar(f float64, n int) string {
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	k := min(max(int(float64(f*float64(n))+0.5), 0), n)
	return "[" + strings.Repeat("#", k) + strings.Repeat(".", n-k) + "]"
}

// fmtDuration prints seconds as 1h02m, 3m04s or 5s.
func fmtDuration(s float64) string {
	if s != s || s < 0 || s > 1e8 {
		return "?"
	}
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	h, m, sec := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}

func kernelName() string { return vec.Implementation() }

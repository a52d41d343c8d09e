package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// This file holds what the dataset commands (datagen, label, convert,
// shuffle, stats) share: --shard parsing, a one-line status on stderr and
// interrupt handling.

// parseShard reads "k/N" (1 <= k <= N).
func parseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		k, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("--shard %q: want k/N with 1 <= k <= N", s)
	}
	return k, n, nil
}

// status prints a one-line progress report on a terminal (rewritten in
// place), or a line every 30 seconds when stderr is a file or pipe.
type status struct {
	w     io.Writer
	tty   bool
	last  time.Time
	line  string
	width int
	quiet bool
}

func newStatus(w io.Writer, quiet bool) *status {
	st := &status{w: w, quiet: quiet}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			st.tty = true
		}
	}
	return st
}

// show prints line; final forces it out and ends it. An empty final line
// repeats the last one.
func (s *status) show(line string, final bool) {
	if s.quiet || (final && line == "" && s.line == "") {
		return
	}
	if line == "" {
		line = s.line
	}
	s.line = line
	if s.tty {
		pad := ""
		if n := s.width - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		s.width = len(line)
		fmt.Fprintf(s.w, "\r%s%s", line, pad)
		if final {
			fmt.Fprintln(s.w)
		}
		return
	}
	if final || time.Since(s.last) >= 30*time.Second {
		s.last = time.Now()
		fmt.Fprintln(s.w, line)
	}
}

// fmtDuration prints a duration rounded for humans ("-" when unknown).
func fmtDuration(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	default:
		return d.Round(time.Second).String()
	}
}

// interruptible returns a context cancelled by SIGINT or SIGTERM.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

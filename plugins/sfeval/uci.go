package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// uciEngine is a running UCI engine spoken to line by line.
type uciEngine struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

// answerTimeout bounds the wait for any expected line.
const answerTimeout = 10 * time.Second

func startEngine(path string) (*uciEngine, error) {
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	e := &uciEngine{cmd: cmd, in: in, lines: make(chan string, 256)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			e.lines <- sc.Text()
		}
		close(e.lines)
	}()
	if err := e.send("uci"); err != nil {
		e.close()
		return nil, err
	}
	if _, err := e.waitFor(func(l string) bool { return l == "uciok" }); err != nil {
		e.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A small hash makes ucinewgame (before each search) cheap.
	if err := e.send("setoption name Hash value 1", "isready"); err != nil {
		e.close()
		return nil, err
	}
	if _, err := e.waitFor(func(l string) bool { return l == "readyok" }); err != nil {
		e.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}

func (e *uciEngine) send(cmds ...string) error {
	_, err := io.WriteString(e.in, strings.Join(cmds, "\n")+"\n")
	return err
}

// waitFor reads lines until match accepts one, which it returns, and
// passes every line read (including that one) to seen.
func (e *uciEngine) waitFor(match func(string) bool, seen ...func(string)) (string, error) {
	timer := time.NewTimer(answerTimeout)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-e.lines:
			if !ok {
				return "", fmt.Errorf("the engine exited")
			}
			l = strings.TrimSpace(l)
			for _, f := range seen {
				f(l)
			}
			if match(l) {
				return l, nil
			}
		case <-timer.C:
			return "", fmt.Errorf("no answer from the engine in %v", answerTimeout)
		}
	}
}

func (e *uciEngine) close() {
	_ = e.in.Close()
	done := make(chan struct{})
	go func() { _ = e.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		_ = e.cmd.Process.Kill()
		<-done
	}
}

// staticEval returns the engine's static evaluation of fen in pawns from
// White's view.
func (e *uciEngine) staticEval(fen string) (float32, error) {
	if err := e.send("position fen "+fen, "eval"); err != nil {
		return 0, err
	}
	var nnue string
	line, err := e.waitFor(func(l string) bool { return strings.HasPrefix(l, "Final evaluation") },
		func(l string) {
			if strings.HasPrefix(l, "NNUE evaluation") {
				nnue = l
			}
		})
	if err != nil {
		return 0, err
	}
	if v, ok := parseEvalLine(line); ok {
		return v, nil
	}
	if v, ok := parseEvalLine(nnue); ok {
		return v, nil
	}
	if strings.Contains(line, "in check") {
		return e.shallowSearch(fen)
	}
	return 0, fmt.Errorf("cannot read the evaluation in %q", line)
}

// parseEvalLine reads lines like "Final evaluation       +0.26 (white
// side) [with scaled NNUE, ...]" or "NNUE evaluation        -1.05 (white
// side)": the first number after the label, with the side it is from.
func parseEvalLine(l string) (float32, bool) {
	_, rest, ok := strings.Cut(l, "evaluation")
	if !ok {
		return 0, false
	}
	rest = strings.TrimLeft(rest, " :\t")
	f := strings.Fields(rest)
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 32)
	if err != nil {
		return 0, false
	}
	if strings.Contains(rest, "(black side)") {
		v = -v
	}
	return float32(v), true
}

// shallowSearch returns a depth-1 search score (pawns, White's view) for
// positions the engine will not evaluate statically (in check). Depth 1
// is the shallowest search Stockfish runs; it includes the quiescence
// search, which in check tries every evasion.
func (e *uciEngine) shallowSearch(fen string) (float32, error) {
	// A fresh hash and history each time, so that the same position always
	// gets the same score.
	if err := e.send("ucinewgame", "isready"); err != nil {
		return 0, err
	}
	if _, err := e.waitFor(func(l string) bool { return l == "readyok" }); err != nil {
		return 0, err
	}
	if err := e.send("position fen "+fen, "go depth 1"); err != nil {
		return 0, err
	}
	var score float32
	var have bool
	_, err := e.waitFor(func(l string) bool { return strings.HasPrefix(l, "bestmove") },
		func(l string) {
			f := strings.Fields(l)
			for i := 0; i+2 < len(f); i++ {
				if f[i] != "score" {
					continue
				}
				n, err := strconv.Atoi(f[i+2])
				if err != nil {
					continue
				}
				switch f[i+1] {
				case "cp":
					score, have = float32(n)/100, true
				case "mate":
					score, have = 300, true
					if n <= 0 {
						score = -300
					}
				}
			}
		})
	if err != nil {
		return 0, err
	}
	if !have {
		return 0, fmt.Errorf("no score in the engine's search of %s", fen)
	}
	if strings.Fields(fen)[1] == "b" {
		score = -score // UCI scores are from the side to move
	}
	return score, nil
}

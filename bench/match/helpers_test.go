package match

import (
	"bytes"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

var (
	fakeOnce sync.Once
	fakePath string
	fakeErr  error
	fakeDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

// fakeEngine builds testdata/fakeengine once and returns its path.
func fakeEngine(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(build.Default.GOROOT, "bin", "go")
		}
		fakeDir, fakeErr = os.MkdirTemp("", "fakeengine")
		if fakeErr != nil {
			return
		}
		fakePath = filepath.Join(fakeDir, "fakeengine")
		out, err := exec.Command(goTool, "build", "-o", fakePath, "./testdata/fakeengine").CombinedOutput()
		if err != nil {
			fakeErr = err
			fakePath = string(out)
		}
	})
	if fakeErr != nil {
		t.Fatalf("building testdata/fakeengine: %v\n%s", fakeErr, fakePath)
	}
	return fakePath
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// onWrite, if set, sees every write (under the lock).
	onWrite func(string)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onWrite != nil {
		s.onWrite(string(p))
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// replayedGame is a PGN game checked move by move against engine/board.
type replayedGame struct {
	tags  map[string]string
	final *board.Position
	plies int
}

// replayPGN reads a PGN file and replays every game with engine/board,
// matching each SAN token exactly against the SAN of a legal move (so it
// does not trust the runner's own SAN parser). It fails the test on any
// illegal or misspelt move.
func replayPGN(t *testing.T, path string) []replayedGame {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	games, err := readPGN(bytes.NewReader(data), path)
	if err != nil {
		t.Fatalf("PGN does not parse: %v", err)
	}
	var out []replayedGame
	for gi, g := range games {
		fen := board.StartFEN
		if f, ok := g.tags["FEN"]; ok {
			fen = f
		}
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatalf("game %d: FEN: %v", gi+1, err)
		}
		for i, san := range g.moves {
			var ml board.MoveList
			p.GenerateLegal(&ml)
			found := false
			for _, m := range ml.Slice() {
				if p.SAN(m) == san {
					p.MakeMove(m)
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("game %d, ply %d: %q is not the SAN of a legal move in %s", gi+1, i+1, san, p.FEN())
			}
		}
		out = append(out, replayedGame{tags: g.tags, final: p, plies: len(g.moves)})
	}
	return out
}

// resultTokens returns the result token ending each game's movetext.
func resultTokens(pgn string) []string {
	var res []string
	for _, line := range strings.Split(pgn, "\n") {
		if strings.HasPrefix(line, "[") {
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		last := f[len(f)-1]
		if last == "1-0" || last == "0-1" || last == "1/2-1/2" || last == "*" {
			res = append(res, last)
		}
	}
	return res
}

package data

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// The built-in data, so that a fresh clone runs the shipped experiments
// without the team's shared folder:
//   - positions.epd: 3,000 positions sampled from Stockfish 15.1 self-play
//     (the reference set of the engine's exactness tests);
//   - positions.sf15.1.raw: Stockfish 15.1's NNUE output for each of them
//     (default net nn-ad9b42354671.nnue; raw internal units, side to move),
//     as Stockfish's own code printed them and nnuelab's sf15.1 arch
//     reproduces them (TestBuiltinStockfishEvals);
//   - validation-sf151.txt.zst: the last 10,000 positions of the
//     Stockfish 15.1 self-play set (CudAD text, score from White's view);
//   - openings-unbalanced-8ply.epd: the unbalanced 8-ply opening book.
//
//go:embed positions.epd positions.sf15.1.raw validation-sf151.txt.zst openings-unbalanced-8ply.epd
var builtinData embed.FS

// Names of the built-in files as manifests and plans refer to them.
const (
	BuiltinPositions  = "builtin:positions.epd"
	BuiltinValidation = "builtin:validation-sf151.txt.zst"
	BuiltinOpenings   = "builtin:openings-unbalanced-8ply.epd"
)

// Open opens a data file: a path, or a builtin: name.
func Open(name string) (io.ReadCloser, error) {
	if b, ok := strings.CutPrefix(name, "builtin:"); ok {
		f, err := builtinData.Open(b)
		if err != nil {
			return nil, fmt.Errorf("no built-in data file %q", b)
		}
		return f, nil
	}
	return os.Open(name)
}

// Copy writes a data file (path or builtin:) to dst atomically.
func Copy(name, dst string) error {
	f, err := Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAll(dst, data, 0o644)
}

// FileSHA256 returns the hex SHA-256 of a data file (path or builtin:):
// fsutil.FileSHA256 for a path, the embedded copy's hash for a builtin.
func FileSHA256(name string) (string, error) {
	if _, ok := strings.CutPrefix(name, "builtin:"); !ok {
		sum, _, err := fsutil.FileSHA256(name)
		return sum, err
	}
	f, err := Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Position is one position of a position set, with its line number.
type Position struct {
	Line int
	FEN  string
	Pos  *board.Position
}

// ReadPositions reads an EPD/FEN file (path or builtin:), skipping blank
// and # lines; limit > 0 keeps the first limit positions. A bad line is an
// error naming the file and line.
func ReadPositions(name string, limit int) ([]Position, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var out []Position
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		p, err := board.ParseFEN(text)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		out = append(out, Position{Line: line, FEN: text, Pos: p})
		if limit > 0 && len(out) == limit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no positions", name)
	}
	return out, nil
}

// BuiltinStockfishRaw returns Stockfish 15.1's raw NNUE outputs for the
// built-in positions, in file order.
func BuiltinStockfishRaw() ([]int32, error) {
	data, err := builtinData.ReadFile("positions.sf15.1.raw")
	if err != nil {
		return nil, err
	}
	var out []int32
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		v, err := strconv.ParseInt(t, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("built-in positions.sf15.1.raw line %d: %w", line, err)
		}
		out = append(out, int32(v))
	}
	return out, nil
}

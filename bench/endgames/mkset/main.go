// Command mkset makes bench/endgames/basic.epd, the won basic endgames that
// bench/endgames.sh plays against Stockfish: for each material of the set
// and each colour of the stronger side, it draws random legal positions with
// the stronger side to move (seeded, so the same flags give the same file),
// asks Fathom, the Syzygy tables' reference prober, for each one's WDL and
// DTZ, and keeps the first ones that are wins for the side to move (not
// cursed by the fifty-move rule) at least -mindtz plies from their first
// capture or mate. Each EPD line records the table's verdict:
//
//	8/8/8/4k3/8/8/8/KQ6 w - - hmvc 0; fmvn 1; id "KQvK w 1"; wdl "win"; dtz 17;
//
// Fathom is a separate program (its source is not part of nnuelab); build
// it from its source and point -fathom at it and -tables at the 3-5 piece
// tables (see bench/endgames/README.md).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
)

// material is one endgame of the set: the stronger side's pieces besides
// its king, the weaker side's, and how many positions of each colour.
type material struct {
	strong, weak string // piece letters, upper case
	perColour    int
}

// set is the endgames of issue 47: mates against a bare king, the queen
// against a rook, and rook and bishop against rook.
var set = []material{
	{"Q", "", 3},
	{"R", "", 3},
	{"RN", "", 3},
	{"RB", "", 3},
	{"BB", "", 3},
	{"BN", "", 4},
	{"Q", "R", 4},
	{"RB", "R", 4},
}

func (m material) name() string { return "K" + m.strong + "vK" + m.weak }

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mkset:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mkset", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fathom := fs.String("fathom", "fathom.linux", "Fathom's command-line prober")
	tables := fs.String("tables", "", "folder of the Syzygy tables (.rtbw and .rtbz)")
	seed := fs.Uint64("seed", 1, "seed of the random positions")
	minDTZ := fs.Int("mindtz", 15, "least distance to zeroing, in plies")
	tries := fs.Int("tries", 20000, "random positions drawn per material and colour before giving up")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tables == "" {
		return errors.New("-tables is required")
	}
	rng := rand.New(rand.NewPCG(*seed, 0x656e6467616d6573))
	fmt.Fprintf(stdout, "# Won basic endgames (issue 47): made by `go run ./bench/endgames/mkset -seed %d -mindtz %d`;\n", *seed, *minDTZ)
	fmt.Fprintf(stdout, "# wdl and dtz are Fathom's (Syzygy tables) for the side to move, dtz in plies. See README.md.\n")
	for _, m := range set {
		for _, strong := range []board.Color{board.White, board.Black} {
			found := 0
			for try := 0; found < m.perColour; try++ {
				if try == *tries {
					return fmt.Errorf("%s with %s stronger: %d of %d positions found in %d tries", m.name(), strong, found, m.perColour, *tries)
				}
				fen, ok := randomPosition(rng, m, strong)
				if !ok {
					continue
				}
				wdl, dtz, err := probe(*fathom, *tables, fen)
				if err != nil {
					return err
				}
				if wdl != "Win" || dtz < *minDTZ {
					continue
				}
				found++
				f := strings.Fields(fen)
				fmt.Fprintf(stdout, "%s hmvc 0; fmvn 1; id \"%s %s %d\"; wdl \"win\"; dtz %d;\n",
					strings.Join(f[:4], " "), m.name(), f[1], found, dtz)
			}
		}
	}
	return nil
}

// randomPosition places the kings and pieces of m on distinct random
// squares with the stronger side to move; ok is false when the result is
// not a legal position, or is one the material does not stand for (both
// bishops of KBBvK on one colour, the side to move in check).
func randomPosition(rng *rand.Rand, m material, strong board.Color) (string, bool) {
	var sq [64]byte
	put := func(c byte) {
		for {
			s := rng.IntN(64)
			if sq[s] == 0 {
				sq[s] = c
				return
			}
		}
	}
	letter := func(c byte, white bool) byte {
		if white {
			return c
		}
		return c + 'a' - 'A'
	}
	put(letter('K', strong == board.White))
	put(letter('K', strong != board.White))
	for _, c := range []byte(m.strong) {
		put(letter(c, strong == board.White))
	}
	for _, c := range []byte(m.weak) {
		put(letter(c, strong != board.White))
	}
	if strings.Count(m.strong, "B") == 2 {
		colours := 0
		for s, c := range sq {
			if c == 'B' || c == 'b' {
				colours |= 1 << ((s/8 + s%8) & 1)
			}
		}
		if colours != 3 {
			return "", false
		}
	}
	var b strings.Builder
	for rank := 7; rank >= 0; rank-- {
		empty := 0
		for file := range 8 {
			c := sq[rank*8+file]
			if c == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteByte(c)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
	side := "w"
	if strong == board.Black {
		side = "b"
	}
	fen := b.String() + " " + side + " - - 0 1"
	p, err := board.ParseFEN(fen)
	if err != nil || p.InCheck() {
		return "", false
	}
	return fen, true
}

// probe runs Fathom on fen and returns its WDL word and DTZ.
func probe(fathom, tables, fen string) (string, int, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(fathom, "--path="+tables, fen)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", 0, fmt.Errorf("fathom on %q: %v: %s", fen, err, strings.TrimSpace(errOut.String()))
	}
	wdl, dtz, err := parseFathom(out.String())
	if err != nil {
		return "", 0, fmt.Errorf("fathom on %q: %w", fen, err)
	}
	return wdl, dtz, nil
}

// parseFathom reads the WDL and DTZ tags of Fathom's PGN output
// ([WDL "Win"], [DTZ "17"]); a missing or malformed tag is an error naming
// it and its line.
func parseFathom(out string) (wdl string, dtz int, err error) {
	haveWDL, haveDTZ := false, false
	for i, line := range strings.Split(out, "\n") {
		name, value, ok := tag(line)
		if !ok {
			continue
		}
		switch name {
		case "WDL":
			switch value {
			case "Win", "CursedWin", "Draw", "BlessedLoss", "Loss":
			default:
				return "", 0, fmt.Errorf("line %d: WDL %q is not one of Win, CursedWin, Draw, BlessedLoss, Loss", i+1, value)
			}
			wdl, haveWDL = value, true
		case "DTZ":
			n, err := strconv.Atoi(value)
			if err != nil {
				return "", 0, fmt.Errorf("line %d: DTZ %q is not an integer", i+1, value)
			}
			dtz, haveDTZ = n, true
		}
	}
	switch {
	case !haveWDL:
		return "", 0, errors.New("no WDL tag in its output")
	case !haveDTZ:
		return "", 0, errors.New("no DTZ tag in its output")
	}
	return wdl, dtz, nil
}

// tag splits a PGN tag line [Name "value"]; ok is false for other lines.
func tag(line string) (name, value string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "\"]") {
		return "", "", false
	}
	name, value, ok = strings.Cut(line[1:len(line)-2], " \"")
	return name, value, ok && name != "" && !strings.ContainsAny(name, " \"")
}

// Package tablebase is how datagen and label use Syzygy tables: the tables'
// identity as a run records it (NAME:CHECKSUM of every file) and their
// verdict on a record's position under the fifty-move rule.
package tablebase

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// Open opens the tables of dirs (separated by ':') and returns them with
// their identity (Sums).
func Open(dirs string) (*syzygy.Tables, []string, error) {
	t, err := syzygy.Open(strings.Split(dirs, ":")...)
	if err != nil {
		return nil, nil, err
	}
	sums, err := Sums(t, dirs)
	if err != nil {
		t.Close()
		return nil, nil, err
	}
	return t, sums, nil
}

// Sums lists the table files of t (opened from dirs, which errors name) as
// NAME:CHECKSUM, sorted: the tables' identity, wherever they are (the
// checksum is the one embedded at each file's end, as the official lists
// give it; tb check verifies it).
func Sums(t *syzygy.Tables, dirs string) ([]string, error) {
	files := t.Files()
	if len(files) == 0 {
		return nil, fmt.Errorf("syzygy: no table files in %s", dirs)
	}
	var sums []string
	for _, f := range files {
		sum, err := syzygy.Checksum(f)
		if err != nil {
			return nil, err
		}
		sums = append(sums, filepath.Base(f)+":"+sum)
	}
	sort.Strings(sums)
	return sums, nil
}

// Result is p's result (White's view) by the tables t under the fifty-move
// rule from p's clock; ok is false when t is nil or holds no table for p
// (castling rights, more pieces, a table not there), and the game is played
// on. A table that cannot be read is an error naming it: a game must not
// go on to a result the run then records as the tables'.
func Result(t *syzygy.Tables, p *board.Position) (res datasets.Result, ok bool, err error) {
	if t == nil || p.CastlingRights() != 0 || p.Occupied().Count() > t.MaxPieces() {
		return datasets.Draw, false, nil
	}
	var w syzygy.WDL
	if p.HalfmoveClock() == 0 {
		w, err = t.ProbeWDL(p)
	} else {
		var d int
		if d, err = t.ProbeDTZ(p); err == nil {
			w = syzygy.Rule50WDL(d, p.HalfmoveClock())
		}
	}
	var missing *syzygy.MissingError
	switch {
	case errors.As(err, &missing):
		return datasets.Draw, false, nil
	case err != nil:
		return datasets.Draw, false, fmt.Errorf("syzygy tables: %s: %w", p.FEN(), err)
	}
	white := w
	if p.SideToMove() == board.Black {
		white = -w
	}
	switch white {
	case syzygy.Win:
		return datasets.WhiteWin, true, nil
	case syzygy.Loss:
		return datasets.BlackWin, true, nil
	}
	return datasets.Draw, true, nil
}

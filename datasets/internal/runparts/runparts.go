// Package runparts is what datagen and label share to write a data file as
// a resumable run: the run's parts folder (datasets.PartsDir) with its
// lock, its work files of part lines (a record in the text format with the
// move played), the merge of the chunks into the output in any format, and
// the manifest written last, so that a kill at any point leaves either the
// parts or a finished output with its manifest.
package runparts

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// maxLine is the longest line of a work file (a part line is a text line
// with a move).
const maxLine = 4096

// Lock takes the lock of a run's parts folder (fsutil.Lock on its "lock"
// file), so that two runs writing the same output cannot play into one
// folder: the second's error names the first's process ID and command
// (os.Args when command is empty). The lock goes when the process dies or
// when the parts folder is removed.
func Lock(parts, command string) (func(), error) {
	if command == "" {
		command = strings.Join(os.Args, " ")
	}
	unlock, err := fsutil.Lock(filepath.Join(parts, "lock"), command)
	if err != nil {
		return nil, fmt.Errorf("another run is writing into %s: %w", parts, err)
	}
	return unlock, nil
}

// RemoveStaleOutputTemps removes the temporaries of out and of its
// manifest that a killed run left (those of a live process stay).
func RemoveStaleOutputTemps(out string) error {
	for _, p := range []string{out, datasets.ManifestPath(out)} {
		if _, err := datasets.RemoveStaleTemps(p); err != nil {
			return err
		}
	}
	return nil
}

// OutputComplete reports whether out and its manifest were both written:
// the manifest's sha256 is out's.
func OutputComplete(out string) bool {
	var m struct {
		SHA256 string `toml:"sha256"`
	}
	if _, err := toml.DecodeFile(datasets.ManifestPath(out), &m); err != nil || m.SHA256 == "" {
		return false
	}
	sum, _, err := fsutil.FileSHA256(out)
	return err == nil && sum == m.SHA256
}

// EachLine calls fn for every line of a work file (zstd-compressed when
// its name ends in .zst); an error names the file and the line.
func EachLine(path string, fn func(line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var rd io.Reader = f
	if strings.HasSuffix(path, ".zst") {
		zr, err := zstd.NewReader(f)
		if err != nil {
			return err
		}
		defer zr.Close()
		rd = zr
	}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 1<<16), maxLine)
	for n := 1; sc.Scan(); n++ {
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w (damaged part: remove it and rerun)", path, err)
	}
	return nil
}

// Line is a record as the work files of datagen and label keep it: the
// text format, then the move played (from and to squares, castling as king
// takes rook, and the promotion letter) when known, so that moves survive
// until the output is written in a format that keeps them.
func Line(r *datasets.Record) string {
	t := r.Text()
	if r.Move == board.NullMove {
		return t
	}
	m := r.Move
	t += " " + m.From().String() + m.To().String()
	if pt := m.Promo(); pt != board.NoPieceType {
		t += string("pnbrqk"[pt])
	}
	return t
}

// ParseLine reads a Line: a text line with or without a move, which must be
// legal in the position.
func ParseLine(line string) (datasets.Record, error) {
	f := strings.Fields(line)
	if n := len(f); n < 3 || !strings.HasPrefix(f[n-3], "[") {
		return datasets.ParseText(line)
	}
	mv := f[len(f)-1]
	r, err := datasets.ParseText(strings.Join(f[:len(f)-1], " "))
	if err != nil {
		return datasets.Record{}, err
	}
	p, err := r.Position()
	if err != nil {
		return datasets.Record{}, err
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		s := m.From().String() + m.To().String()
		if pt := m.Promo(); pt != board.NoPieceType {
			s += string("pnbrqk"[pt])
		}
		if s == mv {
			r.Move = m
			return r, nil
		}
	}
	return datasets.Record{}, fmt.Errorf("move %q is not legal in %s", mv, r.FEN())
}

// Merge concatenates the work files 0..n-1 (chunkFile names them) into out,
// in the given format. Lines starting with '#' go to header (with the chunk
// number), records are passed to record and written; on any error the
// partial output is removed.
func Merge(out string, format datasets.Format, n int64, chunkFile func(int64) string,
	header func(chunk int64, line []byte) error, record func(datasets.Record)) error {
	w, err := datasets.CreateFormat(out, format)
	if err != nil {
		return err
	}
	for c := int64(0); c < n; c++ {
		err := EachLine(chunkFile(c), func(line []byte) error {
			if len(line) == 0 {
				return nil
			}
			if line[0] == '#' {
				return header(c, line)
			}
			rec, err := ParseLine(string(line))
			if err != nil {
				return err
			}
			record(rec)
			return w.Write(rec)
		})
		if err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// Finish completes a run whose output out is written: it fills in the
// output's SHA-256 and size, writes manifest m beside it atomically, and
// only then removes the parts folder, so that a kill at any point leaves
// either the parts or a finished output with its manifest.
func Finish(out, parts string, m any, sha *string, size *int64) error {
	var err error
	if *sha, *size, err = fsutil.FileSHA256(out); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(m); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(datasets.ManifestPath(out), b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.RemoveAll(parts)
}

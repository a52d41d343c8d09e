package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

func init() {
	register(command{"tb", "Syzygy endgame tables: probe positions (WDL, DTZ), check files' checksums", runTB})
}

func runTB(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tb", "tb probe --path DIRS (--fen FEN | --epd FILE) | tb check DIR...", stderr)
	if len(args) == 0 {
		return usageErrorf(fs, `expected "tb probe" or "tb check"`)
	}
	if isHelp(args[0]) {
		fs.Usage()
		return flag.ErrHelp
	}
	switch args[0] {
	case "probe":
		return runTBProbe(args[1:], stdout, stderr)
	case "check":
		return runTBCheck(args[1:], stdout, stderr)
	}
	return usageErrorf(fs, `expected "tb probe" or "tb check", got %q`, args[0])
}

// runTBProbe prints FEN<TAB>WDL<TAB>DTZ for each position, the WDL from the
// side to move (loss, blessed-loss, draw, cursed-win, win: the fifty-move
// rule's results counted from a clock at 0, as python-chess's probe_wdl)
// and the signed distance to zeroing (python-chess's probe_dtz). A position
// the tables cannot answer is an error on stderr naming why (the missing
// table, castling rights); the command then fails at the end.
func runTBProbe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tb probe", "tb probe --path DIRS (--fen FEN | --epd FILE)", stderr)
	path := fs.String("path", "", "table directories, separated by ':' (as the SyzygyPath option)")
	fen := fs.String("fen", "", "the position to probe")
	epd := fs.String("epd", "", "a file of positions, one per line (EPD or FEN; # comments)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf(fs, "unexpected arguments %q", fs.Args())
	case *path == "":
		return usageErrorf(fs, "--path is required")
	case (*fen == "") == (*epd == ""):
		return usageErrorf(fs, "give one of --fen and --epd")
	}
	tables, err := syzygy.Open(strings.Split(*path, ":")...)
	if err != nil {
		return err
	}
	defer tables.Close()
	if len(tables.Files()) == 0 {
		return fmt.Errorf("tb probe: no table files in %s", *path)
	}
	type item struct {
		where, fen string
	}
	var items []item
	if *fen != "" {
		items = append(items, item{"--fen", *fen})
	} else {
		f, err := os.Open(*epd)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if l := strings.TrimSpace(sc.Text()); l != "" && l[0] != '#' {
				items = append(items, item{fmt.Sprintf("%s:%d", *epd, n), epdFEN(l)})
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *epd, err)
		}
	}
	failed := 0
	for _, it := range items {
		p, err := board.ParseFEN(it.fen)
		if err == nil {
			var w syzygy.WDL
			var d int
			if w, err = tables.ProbeWDL(p); err == nil {
				d, err = tables.ProbeDTZ(p)
			}
			if err == nil {
				fmt.Fprintf(stdout, "%s\t%s\t%d\n", p.FEN(), w, d)
				continue
			}
		}
		failed++
		fmt.Fprintf(stderr, "tb probe: %s: %s: %v\n", it.where, it.fen, err)
	}
	if failed > 0 {
		return fmt.Errorf("tb probe: %d of %d positions not answered", failed, len(items))
	}
	return nil
}

// epdFEN turns an EPD line (four fields, then clocks or operations) into a
// FEN: its clocks when it has them, else 0 1.
func epdFEN(line string) string {
	f := strings.Fields(line)
	if len(f) < 4 {
		return line // ParseFEN says what is missing
	}
	clocks := "0 1"
	if len(f) >= 6 && isCount(f[4]) && isCount(f[5]) {
		clocks = f[4] + " " + f[5]
	}
	return strings.Join(f[:4], " ") + " " + clocks
}

func isCount(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// runTBCheck verifies every table file in the directories against the
// checksum embedded at its end, printing one line per file.
func runTBCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tb check", "tb check DIR...", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf(fs, "need at least one directory")
	}
	var files []string
	for _, dir := range fs.Args() {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".rtbw" || ext == ".rtbz") {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("tb check: no .rtbw or .rtbz files in %s", strings.Join(fs.Args(), ", "))
	}
	sort.Strings(files)
	var bad []string
	for _, f := range files {
		if err := syzygy.CheckFile(f); err != nil {
			fmt.Fprintf(stdout, "FAIL\t%s\t%v\n", f, err)
			bad = append(bad, filepath.Base(f))
			continue
		}
		sum, err := syzygy.Checksum(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "ok\t%s\t%s\n", f, sum)
	}
	if len(bad) > 0 {
		return errors.New("tb check: " + strconv.Itoa(len(bad)) + " of " + strconv.Itoa(len(files)) + " files failed: " + strings.Join(bad, ", "))
	}
	return nil
}

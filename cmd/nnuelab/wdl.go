package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/engine/wdl"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

func init() {
	register(command{"wdl", "fit the win/draw/loss model UCI_ShowWDL prints to games (scores and results of a dataset)", runWDL})
}

// maxWDLScore leaves out scores beyond it: the games are decided there and
// such positions say nothing about the curve's middle.
const maxWDLScore = 4000

func runWDL(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("wdl", "wdl fit [--go FILE] [--min-ply N] DATA...", stderr)
	goFile := fs.String("go", "", "also write the model as Go source (engine/wdl/model.go)")
	minPly := fs.Int("min-ply", 0, "leave out positions before this ply (a book's random openings)")
	if len(args) > 0 && isHelp(args[0]) {
		fs.Usage()
		return flag.ErrHelp
	}
	if len(args) == 0 {
		return usageErrorf(fs, `expected "wdl fit"`)
	}
	if args[0] != "fit" {
		return usageErrorf(fs, `expected "wdl fit", got %q`, args[0])
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf(fs, "need at least one dataset")
	}
	var samples []wdl.Sample
	skipped := 0
	for _, in := range fs.Args() {
		for rec, err := range datasets.Records(in, datasets.Options{}).All() {
			if err != nil {
				return err
			}
			v := int(rec.Score)
			if rec.Ply() < *minPly || v >= search.MateBound || v <= -search.MateBound || v > maxWDLScore || v < -maxWDLScore {
				skipped++
				continue
			}
			var n [7]int
			rec.Pieces(func(p board.Piece, _ board.Square) { n[p.Type()]++ })
			o := float64(float64(rec.Result) / 2) // white's view: 0 black won, 0.5 draw, 1 white won
			if rec.SideToMove() == board.Black {
				v, o = -v, 1-o
			}
			samples = append(samples, wdl.Sample{Score: float64(v), Outcome: o,
				Material: wdl.Material(n[board.Pawn], n[board.Knight], n[board.Bishop], n[board.Rook], n[board.Queen])})
		}
	}
	md, bins, err := wdl.Fit(samples)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d positions fitted (%d left out: mate scores, beyond ±%d cp or before ply %d), %d material counts with %d or more\n\n",
		len(samples), skipped, maxWDLScore, *minPly, len(bins), wdl.MinBin)
	fmt.Fprintln(stdout, "| material | positions | a (cp) | b (cp) | fitted a | fitted b |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	for _, b := range bins {
		fa, fb := md.Params(b.Material)
		fmt.Fprintf(stdout, "| %d | %d | %.1f | %.1f | %.1f | %.1f |\n", b.Material, b.N, b.A, b.B, fa, fb)
	}
	fmt.Fprintf(stdout, "\na(m) = %s\nb(m) = %s   (m = material / 58)\n", polyText(md.A), polyText(md.B))
	if *goFile != "" {
		src := fmt.Sprintf(`package wdl

// defaultModel is written by %s
// (docs/wdl.md): %d positions.
var defaultModel = Model{
	A: [4]float64{%.6g, %.6g, %.6g, %.6g},
	B: [4]float64{%.6g, %.6g, %.6g, %.6g},
}
`, "`nnuelab wdl fit "+strings.Join(args[1:], " ")+"`", len(samples),
			md.A[0], md.A[1], md.A[2], md.A[3], md.B[0], md.B[1], md.B[2], md.B[3])
		if err := fsutil.WriteFileAtomic(*goFile, []byte(src), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", *goFile)
	}
	return nil
}

func polyText(c [4]float64) string {
	return fmt.Sprintf("%.3f m³ %+.3f m² %+.3f m %+.3f", c[0], c[1], c[2], c[3])
}

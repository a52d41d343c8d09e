package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nnuelab/nnuelab/engine/uci"
	"github.com/nnuelab/nnuelab/experiments"
	"github.com/nnuelab/nnuelab/experiments/generations"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/report"
	"github.com/nnuelab/nnuelab/experiments/runner"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

func init() {
	register(command{"experiment", "run architecture experiments from a manifest: tables, plots, Elo (local or Slurm)", runExperiment})
}

const experimentUsage = `Usage: nnuelab experiment <run|report|claims|migrate|task|engine> ...

  run FILE [flags]      plan the manifest, run what has no result yet (a killed
                        run resumes), merge results, write the report
  report FILE [flags]   rewrite the report from the results, without running
  claims [--check]      rewrite docs/claims.md's table from docs/claims.toml and
                        the experiments' results (--check: fail if it differs)
  migrate DIR... [--to DEST]
                        move results an earlier nnuelab wrote under
                        experiments/results to results/ (games compressed
                        to .pgn.zst); idempotent
  migrate --seal DIR... give the task files of results folders written before
                        task files were sealed their content_sha256, in
                        place (Elo counts checked against the games first)
  task --out DIR ID...  run tasks of a plan (what executors start; internal)
  engine --arch FILE [--net FILE]
                        a UCI engine preset to a variant (what matches start)

Run 'nnuelab experiment run --help' for the run flags. Manifests: experiments/*.toml,
schema in docs/experiments.md.
`

func runExperiment(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, experimentUsage)
		return &usageError{err: fmt.Errorf("missing subcommand")}
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "run":
		return experimentRun(rest, stdout, stderr)
	case "report":
		return experimentReport(rest, stdout, stderr)
	case "claims":
		return experimentClaims(rest, stdout, stderr)
	case "migrate":
		return experimentMigrate(rest, stdout, stderr)
	case "task":
		return experimentTask(rest, stderr)
	case "engine":
		return experimentEngine(rest, stdout, stderr)
	case "-h", "--help", "-help", "help":
		fmt.Fprint(stderr, experimentUsage)
		return flag.ErrHelp
	}
	fmt.Fprint(stderr, experimentUsage)
	return &usageError{err: fmt.Errorf("unknown subcommand %q", sub)}
}

// parseInterleaved parses flags that may come before or after the
// positional arguments (nnuelab experiment run FILE --dry-run).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func experimentRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment run", "experiment run FILE [--dry-run] [--executor local|slurm] [--out DIR] [flags]", stderr)
	dry := fs.Bool("dry-run", false, "print the plan (variants, nets, tasks and their state) and a cost estimate; run nothing")
	executor := fs.String("executor", "local", "where tasks run: local (processes on this machine) or slurm (sbatch --array)")
	out := fs.String("out", "", "results folder (default results/NAME)")
	cache := fs.String("cache", filepath.Join("experiments", "cache"), "trained-net cache, shared by experiments (content-addressed)")
	reportDir := fs.String("report-dir", filepath.Join("docs", "reports"), "where NAME.md and its plots go")
	noReport := fs.Bool("no-report", false, "skip the report")
	jobs := fs.Int("jobs", 0, "local executor: cores to fill (default all)")
	retries := fs.Int("retries", -1, "times a failed task is run again (default: local 0, slurm 2)")
	poll := fs.Duration("poll", 5*time.Second, "slurm executor: squeue interval")
	fresh := fs.Bool("fresh", false, "run every task again, ignoring stored results (after an engine change); trained nets stay cached")
	skip := fs.String("skip", "", "metrics to leave out of this run, comma-separated (e.g. elo); the report marks them pending")
	allowDirty := fs.Bool("allow-dirty", false, "let a binary built from a tree with uncommitted changes write results under the repository's results/ (refused otherwise); the run records the sha256 of the output of git diff HEAD")
	shared := fs.String("shared", plan.ResultsRoot, "results root searched for Elo chunks that another experiment played under the same key (adopted, not replayed); empty adopts none")
	var sbatch repeatFlag
	fs.Var(&sbatch, "sbatch", "slurm executor: extra sbatch argument, repeatable (--sbatch=--partition=cpu --sbatch=--time=2:00:00)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf(fs, "expected one manifest FILE, got %d arguments", len(pos))
	}
	var ex runner.Executor
	switch *executor {
	case "local":
		l := &runner.Local{Jobs: *jobs}
		if *retries > 0 {
			l.Retries = *retries
		}
		ex = l
	case "slurm":
		s := runner.NewSlurm(sbatch)
		s.Poll, s.Log = *poll, stderr
		if *retries >= 0 {
			s.Retries = *retries
		}
		ex = s
	default:
		return fmt.Errorf("--executor must be local or slurm, got %q", *executor)
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	_, err = experiments.Run(ctx, pos[0], runner.RunOptions{
		Options: plan.Options{Out: *out, Cache: *cache, Binary: bin,
			Command: "nnuelab experiment run " + filepath.ToSlash(pos[0]), Skip: splitList(*skip)},
		Executor: ex, DryRun: *dry, Fresh: *fresh, AllowDirty: *allowDirty, Shared: *shared, ReportDir: *reportDir, NoReport: *noReport,
		Stdout: stdout, Log: stderr, Terminal: isTerminal(stderr), Jobs: *jobs,
	})
	return err
}

// splitList splits a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func experimentReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment report", "experiment report FILE [--out DIR] [--report-dir DIR] [--partial]", stderr)
	out := fs.String("out", "", "results folder (default results/NAME)")
	reportDir := fs.String("report-dir", filepath.Join("docs", "reports"), "where NAME.md and its plots go")
	partial := fs.Bool("partial", false, "report a run that has not finished, from the tasks done so far (Elo from the chunks played)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf(fs, "expected one manifest FILE, got %d arguments", len(pos))
	}
	m, err := manifest.Load(pos[0])
	if err != nil {
		return err
	}
	if m.IsGenerations() {
		// Its results file holds every finished part of every generation:
		// the report is always the current state (--partial changes nothing).
		path, err := generations.Report(m, *out, *reportDir, "nnuelab experiment run "+filepath.ToSlash(pos[0]))
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
		return nil
	}
	p, err := plan.New(m, plan.Options{Out: *out, Command: "nnuelab experiment run " + filepath.ToSlash(pos[0])})
	if err != nil {
		return err
	}
	var path string
	if *partial {
		recs, missing, err := records.MergePartial(p)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return fmt.Errorf("no finished tasks to report in %s (run `nnuelab experiment run %s`)", p.Out, pos[0])
		}
		if len(missing) == 0 {
			fmt.Fprintln(stderr, "every task has finished: this is the full report (the run writes results.jsonl when it ends)")
		}
		path, err = report.WritePartial(p, recs, missing, *reportDir)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
		return nil
	}
	recs, err := records.ReadResults(records.ResultsPath(p.Out))
	if err != nil {
		return fmt.Errorf("no results to report (run `nnuelab experiment run %s` first, or report what is done with --partial): %w", pos[0], err)
	}
	path, err = report.Write(p, recs, *reportDir)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}

// experimentClaims renders the claims table (docs/claims.toml's rows, their
// numbers read from each experiment's results) into the generated part of
// docs/claims.md, or with --check fails when the page differs from it.
func experimentClaims(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment claims", "experiment claims [--claims FILE] [--doc FILE] [--check]", stderr)
	claims := fs.String("claims", filepath.Join("docs", "claims.toml"), "the rows: claims, readings and the results they quote")
	doc := fs.String("doc", filepath.Join("docs", "claims.md"), "the page whose generated part is rewritten (between its claims:begin and claims:end markers)")
	manifests := fs.String("manifests", "experiments", "folder of the manifests (NAME.toml)")
	results := fs.String("results", plan.ResultsRoot, "folder of the results (NAME/results.jsonl, NAME/tasks)")
	check := fs.Bool("check", false, "write nothing; fail if the page differs from what the results give")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "unexpected arguments %q", fs.Args())
	}
	cf, err := report.LoadClaims(*claims)
	if err != nil {
		return err
	}
	gen, err := report.RenderClaims(cf, report.ClaimsOptions{Manifests: *manifests, Results: *results})
	if err != nil {
		return err
	}
	old, err := os.ReadFile(*doc)
	if err != nil {
		return err
	}
	page, err := report.ReplaceClaims(string(old), gen)
	if err != nil {
		return fmt.Errorf("%s: %w", *doc, err)
	}
	return updatePage(*doc, string(old), page, *check, stdout, "the claims table",
		fmt.Sprintf("differs from what %s and the results give: run `nnuelab experiment claims`", *claims))
}

// updatePage writes page, the file at path (now old) with its generated
// part (what) regenerated, or with check only tells whether the file
// already holds it: an error saying mismatch (what differs and the command
// that rewrites it) when it does not.
func updatePage(path, old, page string, check bool, stdout io.Writer, what, mismatch string) error {
	switch {
	case check && page != old:
		return fmt.Errorf("%s %s", path, mismatch)
	case check:
		fmt.Fprintf(stdout, "%s: %s regenerates byte-identically\n", path, what)
		return nil
	case page == old:
		fmt.Fprintf(stdout, "%s: unchanged\n", path)
		return nil
	}
	if err := fsutil.WriteFileAtomic(path, []byte(page), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}

// experimentMigrate moves results folders of an earlier layout
// (experiments/results/..., plain PGN) into the current one.
func experimentMigrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment migrate", "experiment migrate DIR... [--to DEST] | --seal DIR...", stderr)
	to := fs.String("to", "", "destination of the one DIR given (default: its place under results/ for a folder under experiments/results)")
	seal := fs.Bool("seal", false, "seal the task files of the results folders DIR... in place (content_sha256), instead of moving them")
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 || (*to != "" && (len(dirs) != 1 || *seal)) {
		return usageErrorf(fs, "give the folders to migrate (--to with one folder only, not with --seal)")
	}
	if *seal {
		for _, d := range dirs {
			if _, err := runner.Seal(d, stdout); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range dirs {
		dst := *to
		if dst == "" {
			if dst, err = runner.LegacyDest(d); err != nil {
				return err
			}
		}
		if _, err := runner.Migrate(d, dst, stdout); err != nil {
			return err
		}
	}
	return nil
}

func experimentTask(args []string, stderr io.Writer) error {
	fs := newFlagSet("experiment task", "experiment task --out DIR ID...", stderr)
	out := fs.String("out", "", "results folder holding plan.json")
	ids, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *out == "" || len(ids) == 0 {
		return usageErrorf(fs, "give --out DIR and at least one task ID")
	}
	ctx, stop := signalContext()
	defer stop()
	for _, id := range ids {
		if err := runner.RunTask(ctx, *out, id, stderr); err != nil {
			return err
		}
	}
	return nil
}

// switchWriter sends output to a buffer until it is switched to the real
// writer (the engine's set-up replies must not reach the GUI before "uci").
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

func experimentEngine(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment engine", "experiment engine --arch FILE [--net FILE]", stderr)
	archFile := fs.String("arch", "", "architecture: a name from archs/ or a .toml file (a variant's, from the results folder)")
	net := fs.String("net", "", "network file (default: the architecture's shipped net)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *archFile == "" || fs.NArg() != 0 {
		return usageErrorf(fs, "give --arch (and no other arguments)")
	}
	var setup bytes.Buffer
	w := &switchWriter{w: &setup}
	e, err := uci.New(w)
	if err != nil {
		return err
	}
	// Arch and net together (one at a time, the net would first be read
	// with the default Arch's layout), and before the handshake, so that a
	// variant that cannot load fails and the match reports the reason.
	if err := e.SetEvaluator(*archFile, *net); err != nil {
		return fmt.Errorf("setting up the engine: %w", err)
	}
	w.set(stdout)
	return e.Run(os.Stdin)
}

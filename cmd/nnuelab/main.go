// Command nnuelab is the one command-line tool of the nnuelab monorepo: the
// UCI engine itself and the research subcommands (perft, bench, match, ...).
//
// Run with no arguments it speaks UCI on standard input and output, because
// GUIs, match runners and OpenBench start engines that way; with a
// subcommand it runs that command and exits.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	// An sf15.1 net without a file is Stockfish 15.1's own, exported from
	// the installed Stockfish into the net cache on first use.
	_ "github.com/nnuelab/nnuelab/nets/sfnet/sf151"
)

// command is one subcommand. Each lives in its own file and registers itself
// in init, so adding a subcommand touches no other file.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

// defaultCommand runs when nnuelab is started without arguments.
var defaultCommand = "uci"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	name := defaultCommand
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		usage(stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "nnuelab: unknown command %q (run 'nnuelab help' for the list)\n", name)
		return 2
	}
	if err := c.run(args, stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var u *usageError
		if errors.As(err, &u) {
			if !u.printed {
				printError(stderr, name, err)
			}
			return 2
		}
		printError(stderr, name, err)
		return 1
	}
	return 0
}

// printError writes a command's error on one line after "nnuelab NAME:",
// or after "nnuelab " alone when the message already starts with the
// command's name (a subcommand's "nets show: ..."), so that no name is
// written twice.
func printError(w io.Writer, name string, err error) {
	msg := err.Error()
	if strings.HasPrefix(msg, name+" ") || strings.HasPrefix(msg, name+":") {
		fmt.Fprintf(w, "nnuelab %s\n", msg)
		return
	}
	fmt.Fprintf(w, "nnuelab %s: %s\n", name, msg)
}

// usageError is a command line that a command cannot run: an unknown flag,
// a flag value that does not parse, a missing or extra argument. run exits
// with status 2 for it, as Go's flag package and POSIX utilities do, and
// prints its message once: printed says the flag package already wrote it
// (with the usage), so run does not write it again.
type usageError struct {
	err     error
	printed bool
}

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// parseFlags parses args into fs (a flag set from newFlagSet). A parse
// error comes back as a usageError that the flag package has already
// printed with the usage; -h and --help come back as flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &usageError{err: err, printed: true}
}

// usageErrorf prints fs's usage and returns a usage error with the message,
// which run prints once, after the usage.
func usageErrorf(fs *flag.FlagSet, format string, args ...any) error {
	fs.Usage()
	return &usageError{err: fmt.Errorf(format, args...)}
}

// isHelp reports whether arg asks for a command's usage in the place of a
// subcommand (nnuelab nets --help).
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "nnuelab: chess NNUE architectures, one engine core.")
	fmt.Fprintln(w, "\nUsage: nnuelab <command> [flags] [args]   (no command: "+defaultCommand+")")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'nnuelab <command> --help' for a command's flags.")
}

// newFlagSet returns a flag set whose errors come back to the caller and
// whose --help prints the synopsis and flags to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: nnuelab %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

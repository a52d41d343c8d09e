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
		fmt.Fprintf(stderr, "nnuelab %s: %v\n", name, err)
		return 1
	}
	return 0
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

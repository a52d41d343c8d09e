package main

import (
	"io"
	"os"

	"github.com/nnuelab/nnuelab/engine/uci"
)

func init() {
	register(command{"uci", "speak the UCI protocol on stdin/stdout (the default: GUIs start the engine without arguments)", runUCI})
}

func runUCI(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("uci", "uci", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "unexpected arguments %q", fs.Args())
	}
	e, err := uci.New(stdout)
	if err != nil {
		return err
	}
	return e.Run(os.Stdin)
}

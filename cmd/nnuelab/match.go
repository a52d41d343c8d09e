package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/nnuelab/nnuelab/bench/match"
)

func init() {
	register(command{"match", "play games between two UCI engines: Elo, LOS, pentanomial SPRT, PGN", runMatch})
}

func runMatch(args []string, stdout, stderr io.Writer) error {
	cfg, opts, err := match.ParseArgs(args)
	if match.IsHelp(err) {
		fmt.Fprint(stderr, match.Usage)
		return flag.ErrHelp
	}
	if err != nil {
		// The command line (or its -config file) cannot be run.
		return &usageError{err: err}
	}
	// Ctrl-C (or SIGTERM) stops the match: games in progress are dropped
	// and the summary of the finished ones is printed. A second Ctrl-C
	// kills the runner at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()

	sum, runErr := match.Run(ctx, cfg, match.Output{Log: stderr, Debug: opts.Debug, Quiet: opts.Quiet, RatingInterval: opts.RatingInterval})
	if sum == nil {
		return runErr
	}
	if opts.JSON {
		if err := json.NewEncoder(stdout).Encode(sum); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, sum)
	}
	if runErr != nil {
		return runErr
	}
	if sum.Interrupted {
		return fmt.Errorf("interrupted after %d of %d games", sum.Games(), sum.Planned)
	}
	return nil
}

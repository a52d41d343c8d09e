// Package sf151 has an installed Stockfish 15.1 write its default net
// (export_net over UCI) for nnuelab's sf15.1 architecture, which is not
// nnuelab's to ship. Importing it lets sfnet.Cached151 (and so nets.Load of
// an sf15.1 net) export the net into the net cache when the cache lacks it;
// cmd/nnuelab imports it.
package sf151

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/uciclient"
	"github.com/nnuelab/nnuelab/nets/sfnet"
)

func init() {
	sfnet.SetExport151(func(dst string) error { return Export(DefaultStockfishPath(), dst) })
}

// DefaultStockfishPath returns the Stockfish binary to use: $NNUELAB_STOCKFISH
// if set, else Debian's /usr/games/stockfish if present, else "stockfish"
// from $PATH (or that bare name when it is not found, so that the error
// comes from running it).
func DefaultStockfishPath() string { return uciclient.StockfishPath() }

// Export runs the Stockfish 15.1 binary at stockfishPath, has
// its export_net command write the embedded default net, checks the size
// and SHA-256 against sfnet.SF151NetSize and sfnet.SF151NetSHA256 and moves the file to
// dst atomically (a partial file is never left at dst).
func Export(stockfishPath, dst string) error {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	// Export into a fresh folder beside dst under a plain relative name:
	// Stockfish reads the file name as one word, so the folder's path may
	// contain anything.
	tmpDir, err := os.MkdirTemp(filepath.Dir(abs), ".nnuelab-export-")
	if err != nil {
		return fmt.Errorf("export Stockfish net: %w", err)
	}
	defer os.RemoveAll(tmpDir)
	const tmpName = "export.nnue"

	ue, err := uciclient.Start(uciclient.Config{Path: stockfishPath, Dir: tmpDir})
	if err != nil {
		return fmt.Errorf("export Stockfish net: cannot run %s (install Stockfish 15.1: `make deps` or `apt-get install stockfish`): %w", stockfishPath, err)
	}
	defer ue.Kill()
	ctx, deadline := context.Background(), time.Now().Add(2*time.Minute)
	fail := func(token string, err error) error {
		switch {
		case errors.Is(err, uciclient.ErrExited):
			err = fmt.Errorf("%s exited before answering %q (stderr: %q)", stockfishPath, token, ue.Stderr())
		case errors.Is(err, uciclient.ErrTimeout):
			err = fmt.Errorf("%s did not answer %q within 2 minutes", stockfishPath, token)
		}
		return fmt.Errorf("export Stockfish net: %w", err)
	}
	if err := ue.Handshake(ctx, deadline); err != nil {
		return fail("uciok", err)
	}
	// export_net runs in the UCI thread, so readyok comes after the file is
	// complete; the line before it says how the export went.
	var exportMsg string
	if err := ue.Send("export_net "+tmpName, "isready"); err != nil {
		return fail("readyok", err)
	}
	_, err = ue.ReadUntil(ctx, deadline, func(l string) bool { return l == "readyok" }, func(l string) {
		if low := strings.ToLower(l); strings.Contains(low, "network saved") || strings.HasPrefix(low, "failed") {
			exportMsg = l
		}
	})
	if err != nil {
		return fail("readyok", err)
	}
	ue.Quit(time.Second)
	name := ue.Name

	tmp := filepath.Join(tmpDir, tmpName)
	if err := sfnet.Check151(tmp); err != nil {
		return fmt.Errorf("export Stockfish net with %s (%q, said %q): %w", stockfishPath, name, exportMsg, err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		return fmt.Errorf("export Stockfish net: %w", err)
	}
	return nil
}

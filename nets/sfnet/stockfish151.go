package sfnet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Stockfish 15.1's default net, as Debian's stockfish package embeds it and
// its export_net command writes it.
const (
	// SF151NetName is the net's file name (nn- and the first 12 hex digits
	// of its SHA-256).
	SF151NetName = "nn-ad9b42354671.nnue"
	// SF151NetSize is its size in bytes.
	SF151NetSize = 47001499
	// SF151NetSHA256 is its SHA-256, hex.
	SF151NetSHA256 = "ad9b423546714137916bd38978af6fd68d7b8951bef25ff76bf43da72d6cb786"
)

// CacheDir is where Cached151 keeps exported nets:
// $XDG_CACHE_HOME/nnuelab (or the platform's user cache folder), else a
// folder in os.TempDir().
func CacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "nnuelab")
	}
	return filepath.Join(os.TempDir(), "nnuelab-cache")
}

// MakeCacheDir returns CacheDir, created if missing; an
// unwritable cache folder falls back to a folder in os.TempDir(). Every
// net nnuelab caches by name (Stockfish 15.1's export, the nets that
// `nnuelab nets extract` and `nets fetch` get) lives there.
func MakeCacheDir() (string, error) {
	dir := CacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		dir = filepath.Join(os.TempDir(), "nnuelab-cache")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("no folder to cache Stockfish nets in: %w", err)
		}
	}
	return dir, nil
}

// export151 writes Stockfish 15.1's default net to a path (verified,
// atomically); nil until a program sets it with SetExport151.
var export151 func(dst string) error

// SetExport151 installs how Cached151 gets Stockfish 15.1's default net
// when the cache lacks it: nets/sfnet/sf151 installs the export by an
// installed Stockfish 15.1 (export_net over UCI) when a program imports
// it, so that this package, and the net loader and trainer above it, need
// no process spawner to read a net.
func SetExport151(export func(dst string) error) { export151 = export }

// Cached151 returns the path of Stockfish 15.1's default net in CacheDir,
// exporting it first (SetExport151) if the cache lacks it or holds a
// damaged copy. The file name carries the hash, so a cached file is used
// only if it verifies.
func Cached151() (string, error) {
	dir, err := MakeCacheDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, SF151NetName)
	if err := Check151(path); err == nil {
		return path, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		_ = os.Remove(path) // damaged: export again
	}
	if export151 == nil {
		return "", fmt.Errorf("the net cache %s lacks Stockfish 15.1's net %s (and this program cannot export it)", dir, SF151NetName)
	}
	if err := export151(path); err != nil {
		return "", err
	}
	return path, nil
}

// Check151 checks that the file at path is Stockfish 15.1's default net
// (size and SHA-256).
func Check151(path string) error {
	sum, n, err := fsutil.FileSHA256(path)
	if err != nil {
		return err
	}
	if n != SF151NetSize || sum != SF151NetSHA256 {
		return fmt.Errorf("%s is %d bytes with SHA-256 %s; Stockfish 15.1's %s is %d bytes with SHA-256 %s (is the binary Stockfish 15.1?)",
			path, n, sum, SF151NetName, SF151NetSize, SF151NetSHA256)
	}
	return nil
}

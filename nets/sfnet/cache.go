package sfnet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// The net cache is the folder where nnuelab keeps Stockfish's nets by name
// (CacheDir: $XDG_CACHE_HOME/nnuelab, beside Stockfish 15.1's
// export). A cached file is used only if its SHA-256 starts with the
// digits of its name.

// nameRE is a Stockfish net name.
var nameRE = regexp.MustCompile(`^nn-[0-9a-f]{12}\.nnue$`)

// ValidName reports whether name is a Stockfish net name, nn-<12 lower-case
// hex digits>.nnue.
func ValidName(name string) bool { return nameRE.MatchString(name) }

// CheckName checks that data is the net called name: its SHA-256 starts
// with the name's 12 hex digits. what names the data's origin in errors.
func CheckName(name string, data []byte, what string) error {
	if !ValidName(name) {
		return fmt.Errorf("%s: %q is not a Stockfish net name (nn-<12 hex digits>.nnue)", what, name)
	}
	got, sum := NameOf(data)
	if got != name {
		return fmt.Errorf("%s is not %s: its %d bytes have SHA-256 %s, which names %s (%w)", what, name, len(data), sum, got, errNameMismatch)
	}
	return nil
}

// Store writes a checked net into the cache under its name (atomically;
// an existing good copy is kept) and returns its path.
func Store(name string, data []byte) (string, error) {
	if err := CheckName(name, data, "net to cache"); err != nil {
		return "", err
	}
	dir, err := MakeCacheDir()
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	if checkFile(dst, name) == nil {
		return dst, nil
	}
	if err := fsutil.WriteFileAtomic(dst, data, 0o644); err != nil {
		return "", fmt.Errorf("cache net %s: %w", name, err)
	}
	return dst, nil
}

// writeNet writes a net file atomically, creating its folder.
func writeNet(dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(dst, data, 0o644)
}

// ErrNotCached is wrapped by Cached's error when the cache lacks the net.
var ErrNotCached = errors.New("not in the net cache")

// Cached returns the path of the net called name in the cache, checked
// against its name. A damaged copy is removed and reported.
func Cached(name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("%q is not a Stockfish net name (nn-<12 hex digits>.nnue)", name)
	}
	dst := filepath.Join(CacheDir(), name)
	if _, err := os.Stat(dst); err != nil {
		// The fallback folder, when the user cache folder is unwritable.
		alt := filepath.Join(os.TempDir(), "nnuelab-cache", name)
		if _, err2 := os.Stat(alt); err2 != nil {
			return "", fmt.Errorf("net %s: %w (%s)", name, ErrNotCached, filepath.Dir(dst))
		}
		dst = alt
	}
	if err := checkFile(dst, name); err != nil {
		_ = os.Remove(dst)
		return "", fmt.Errorf("cached %w; removed it, get the net again", err)
	}
	return dst, nil
}

// checkFile checks that the file at p has the SHA-256 its name says.
func checkFile(p, name string) error {
	sum, n, err := fsutil.FileSHA256(p)
	if err != nil {
		return err
	}
	if want := name[3:15]; sum[:12] != want {
		return fmt.Errorf("net %s is not %s: its %d bytes have SHA-256 %s, which names nn-%s.nnue (%w)", p, name, n, sum, sum[:12], errNameMismatch)
	}
	return nil
}

package datagen

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// FindCommitted looks under roots for a finished output of cfg: a file
// whose manifest (OUT.manifest.toml) records the same settings, as the
// self-play shards committed under a repository's datasets/ do. Datagen is
// deterministic for its settings, so such a file is what a run of cfg would
// write, and a fresh clone can adopt it instead of playing the games again.
// It returns "" when nothing matches (a root that does not exist holds
// nothing). A match whose file is missing or does not hash to its
// manifest's sha256 is an error naming it: a damaged copy is never adopted.
func FindCommitted(cfg Config, roots []string) (string, error) {
	if err := resolveFiles(&cfg); err != nil {
		return "", err
	}
	want, err := settingsText(cfg)
	if err != nil {
		return "", err
	}
	for _, root := range roots {
		var found string
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == root {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, datasets.ManifestPath("")) {
				return nil
			}
			var m Manifest
			if _, err := toml.DecodeFile(path, &m); err != nil || m.Output == "" {
				return nil // not a datagen manifest (a label run's, a dataset's README data)
			}
			if got, err := settingsText(m.Settings); err != nil || got != want {
				return nil
			}
			out := strings.TrimSuffix(path, datasets.ManifestPath(""))
			sum, n, err := fsutil.FileSHA256(out)
			if err != nil {
				return fmt.Errorf("committed self-play %s (its manifest %s matches): %w", out, path, err)
			}
			if sum != m.SHA256 || n != m.Bytes {
				return fmt.Errorf("committed self-play %s: sha256 %s, %d bytes; its manifest %s says %s, %d bytes: a damaged copy, not adopted", out, sum, n, path, m.SHA256, m.Bytes)
			}
			found = out
			return filepath.SkipAll
		})
		if err != nil {
			return "", err
		}
		if found != "" {
			return found, nil
		}
	}
	return "", nil
}

// AdoptCommitted copies src, a finished output FindCommitted returned, and
// its manifest to out, so that Generate(cfg, out) finds the run finished.
// The manifest is written first and the data last (each by rename), so an
// interrupted copy leaves no output that looks finished.
func AdoptCommitted(src, out string) error {
	mf, err := os.ReadFile(datasets.ManifestPath(src))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(datasets.ManifestPath(out), mf, 0o644); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := fsutil.Create(out, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, in); err != nil {
		f.Abort()
		return fmt.Errorf("copying %s to %s: %w", src, out, err)
	}
	return f.Commit()
}

// resolveFiles records the content hashes of cfg's net, book and tables, as
// Generate does before it compares or writes settings.
func resolveFiles(cfg *Config) error {
	if err := hashFiles(cfg); err != nil {
		return err
	}
	if cfg.Syzygy != "" {
		var err error
		if cfg.SyzygyTables, err = SyzygyTables(cfg.Syzygy); err != nil {
			return err
		}
	}
	return nil
}

// hashFiles records the content hashes of cfg's book and net: the settings
// name them by content, not by path.
func hashFiles(cfg *Config) error {
	var err error
	if cfg.Book != "" {
		if cfg.BookSHA256, _, err = fsutil.FileSHA256(cfg.Book); err != nil {
			return err
		}
	}
	if cfg.EvalFile != "" {
		if cfg.EvalFileSHA256, _, err = fsutil.FileSHA256(cfg.EvalFile); err != nil {
			return err
		}
	}
	return nil
}

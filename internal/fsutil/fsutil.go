// Package fsutil holds the file-system helpers every part of nnuelab
// shares: writing a file so that readers never see it half written.
package fsutil

import (
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path with permissions perm through a
// temporary file in the same folder, synced and renamed into place: a
// reader (or a crash) sees the old file or the new one, never part of it.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

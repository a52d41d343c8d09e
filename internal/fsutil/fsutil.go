// Package fsutil holds the file-system helpers every part of nnuelab
// shares: writing a file so that readers never see it half written (at
// once, WriteFileAtomic, or streamed, Create), and hashing a file
// (FileSHA256).
//
// An atomic write goes through a temporary file beside its target named
// ".NAME.tmpPID-N" (TempOwner reads the PID back), so that a later run can
// tell the leftovers of a killed process from a live process's work
// (datasets.RemoveStaleTemps removes the former).
package fsutil

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// WriteFileAtomic writes data to path with permissions perm through a
// temporary file in the same folder, synced and renamed into place: a
// reader (or a crash) sees the old file or the new one, never part of it.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	if err := f.Chmod(perm); err != nil { // exactly perm, whatever the umask
		f.Abort()
		return err
	}
	return f.Commit()
}

// WriteFileAll is WriteFileAtomic after creating path's folder (and its
// parents) when missing: for outputs whose folders a run makes as it goes.
func WriteFileAll(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(path, data, perm)
}

// File is a file being written under a temporary name beside its path:
// Commit puts it in place (synced, renamed, the folder synced), Abort
// removes it.
type File struct {
	*os.File
	path string
	done bool
}

var tempSeq atomic.Uint64

// TempName is the name of this process's n-th temporary file for an
// atomic write of a file named base.
func TempName(base string, pid int, n uint64) string {
	return fmt.Sprintf(".%s.tmp%d-%d", base, pid, n)
}

// TempOwner reads a temporary file's name as TempName writes it: the base
// name of the file it will become and the PID of the process writing it.
func TempOwner(name string) (base string, pid int, ok bool) {
	if len(name) < 2 || name[0] != '.' {
		return "", 0, false
	}
	i := strings.LastIndex(name, ".tmp")
	if i < 2 {
		return "", 0, false
	}
	p, n, found := strings.Cut(name[i+len(".tmp"):], "-")
	if !found || !digits(p) || !digits(n) {
		return "", 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, false
	}
	return name[1:i], pid, true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Create opens a temporary file for an atomic write of path, beside it,
// with mode perm less the umask.
func Create(path string, perm os.FileMode) (*File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for try := 0; ; try++ {
		name := filepath.Join(dir, TempName(base, os.Getpid(), tempSeq.Add(1)))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if os.IsExist(err) && try < 100 {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path}, nil
	}
}

// Path returns the path the file will have once committed.
func (f *File) Path() string { return f.path }

// Commit syncs and closes the file and renames it into place; on an error
// the temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return errors.New("writer already closed")
	}
	f.done = true
	name := f.Name()
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, f.path); err != nil {
		os.Remove(name)
		return err
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// Abort closes and removes the temporary file; after Commit or Abort it
// does nothing.
func (f *File) Abort() error {
	if f == nil || f.done {
		return nil
	}
	f.done = true
	f.Close()
	return os.Remove(f.Name())
}

// syncDir makes a rename durable (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// FileSHA256 returns the SHA-256 (hex) of the file at path and its size.
func FileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

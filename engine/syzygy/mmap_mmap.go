//go:build linux || darwin || freebsd

package syzygy

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps a file read-only into memory. Table files are read at
// random, so read-ahead is turned off as the reference prober does.
func mapFile(path string) ([]byte, func() error, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("%s: %d bytes is too large to map", path, size)
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	_ = unix.Madvise(data, unix.MADV_RANDOM)
	return data, func() error { return unix.Munmap(data) }, nil
}

//go:build !linux && !darwin && !freebsd

package syzygy

import "os"

// mapFile reads the whole file where memory mapping is not available to
// this package.
func mapFile(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

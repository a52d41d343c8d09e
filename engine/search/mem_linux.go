//go:build linux

package search

import "syscall"

// physicalMemoryMB returns the machine's RAM in megabytes, 0 if unknown.
func physicalMemoryMB() int {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil {
		return 0
	}
	unit := uint64(info.Unit)
	if unit == 0 {
		unit = 1
	}
	return int(uint64(info.Totalram) * unit >> 20)
}

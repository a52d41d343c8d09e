//go:build linux

package search

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

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

// availableMemoryMB returns the memory this process could allocate now
// without swapping or being killed, in megabytes: the kernel's
// MemAvailable, or less where the process's cgroup (v2 or v1) has a limit
// nearer its use; 0 if unknown.
func availableMemoryMB() int {
	avail := memAvailableMB()
	if room, ok := cgroupRoomMB(); ok && (avail == 0 || room < avail) {
		avail = max(room, 1)
	}
	return avail
}

// memAvailableMB reads MemAvailable from /proc/meminfo (0 if unknown).
func memAvailableMB() int {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return int(kb >> 10)
		}
	}
	return 0
}

// cgroupRoomMB returns the process cgroup's memory limit less its use, if
// it has a limit.
func cgroupRoomMB() (int, bool) {
	for _, files := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},                                 // v2
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}, // v1
	} {
		limit, ok1 := readBytes(files[0])
		used, ok2 := readBytes(files[1])
		// v1 writes "no limit" as a number near 2^63.
		if !ok1 || !ok2 || limit >= 1<<62 {
			continue
		}
		if used >= limit {
			return 0, true
		}
		return int((limit - used) >> 20), true
	}
	return 0, false
}

// readBytes reads a cgroup file holding one number of bytes ("max" and a
// missing file are no number).
func readBytes(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	return n, err == nil
}

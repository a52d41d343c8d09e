package datasets

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of /proc's process times (USER_HZ, 100 on every
// Linux architecture Go supports).
const userHZ = 100

// processStart returns when process pid started, from /proc/PID/stat's
// start time (clock ticks since boot) and /proc/stat's boot time.
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	// The command name, in parentheses, may hold spaces: fields start
	// after its last ')'; the start time is field 22, the 20th after it.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	return boot.Add(time.Duration(ticks) * time.Second / userHZ), true
}

// bootTime reads the btime line of /proc/stat.
func bootTime() (time.Time, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(s, 0), true
		}
	}
	return time.Time{}, false
}

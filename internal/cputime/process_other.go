//go:build !unix

package cputime

import "time"

// Process is unknown here: 0, and callers report wall-clock rates only.
func Process() time.Duration { return 0 }

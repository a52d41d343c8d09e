//go:build !unix

package plugintest

// lockFile does nothing where flock is not available.
func lockFile(string) (func(), error) { return func() {}, nil }

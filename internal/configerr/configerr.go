// Package configerr is how nnuelab reads its configuration files: strictly
// (DecodeTOML: an unknown or upper-case key, a syntax error or a value of
// the wrong type is an error), and with every problem an Error naming the
// file, the key and the reason, so that a message says where to look and
// what is wrong. Architectures, experiment manifests, the claims table, the
// ladder, match configurations and the shipped nets' manifest read through it.
package configerr

import "fmt"

// Error is a problem in a configuration file: the file, the key (empty
// when the problem is not one key's, such as a syntax error) and the
// reason.
type Error struct {
	File   string
	Key    string
	Reason string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s: key %q: %s", e.File, e.Key, e.Reason)
}

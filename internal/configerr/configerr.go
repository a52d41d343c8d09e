// Package configerr holds the error every strict reader of nnuelab's
// configuration files returns (archs/*.toml today; experiment manifests
// next): the file, the key and the reason, so that a message says where to
// look and what is wrong.
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

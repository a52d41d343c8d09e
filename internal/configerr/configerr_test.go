package configerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestError(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{File: "a.toml", Key: "net.format", Reason: "unknown format \"x\""}, `a.toml: key "net.format": unknown format "x"`},
		{&Error{File: "a.toml", Reason: "line 3: expected '='"}, `a.toml: line 3: expected '='`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		var e *Error
		if !errors.As(fmt.Errorf("loading: %w", tc.err), &e) || e != tc.err {
			t.Errorf("errors.As does not find %v", tc.err)
		}
	}
}

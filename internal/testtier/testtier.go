// Package testtier tells a test which of the two test tiers runs it.
//
// `make test` runs every test, and a test that needs a program from
// outside Go (Stockfish, Node.js, npm's Stockfish packages, a Slurm
// cluster) fails when the program is missing: nothing is skipped in
// silence. `make check`, the fast tier for everyday work, sets the
// environment variable Env and runs what needs none of them: no apt, no
// npm, no network. A test that needs such a program calls Needs first, so
// that the fast tier leaves it out (saying why, as go test -v shows) while
// make test and CI still run it.
package testtier

import (
	"os"
	"testing"
)

// Env is the environment variable `make check` sets (to 1).
const Env = "NNUELAB_CHECK"

// Fast reports whether the fast tier (make check) runs the tests.
func Fast() bool { return os.Getenv(Env) != "" }

// Needs declares that the test needs what (a program or package from
// outside Go, named for the reader: "Stockfish 15.1 (Debian's stockfish)").
// In the fast tier it skips the test, naming what and the tier that runs
// it; otherwise it does nothing and the test goes on, failing as before if
// what is missing.
func Needs(t testing.TB, what string) {
	t.Helper()
	if Fast() {
		t.Skipf("needs %s: left out of make check (%s set); make test runs it", what, Env)
	}
}

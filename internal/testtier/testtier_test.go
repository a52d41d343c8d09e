package testtier

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNeeds runs a test that calls Needs in a child go test process, with
// and without Env: skipped (naming what it needs) in the fast tier, run
// otherwise.
func TestNeeds(t *testing.T) {
	if os.Getenv("TESTTIER_CHILD") != "" {
		Needs(t, "a program from outside")
		t.Log("ran past Needs")
		return
	}
	for _, tc := range []struct {
		env  string
		want string
	}{
		{Env + "=1", "needs a program from outside: left out of make check"},
		{Env + "=", "ran past Needs"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestNeeds$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTTIER_CHILD=1", tc.env)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.env, err, out)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.env, tc.want, out)
		}
	}
}

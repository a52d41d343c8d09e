package version

import (
	"os/exec"
	"strings"
	"testing"
)

// A test binary is not VCS-stamped, so Revision must fall back to the
// repository's HEAD and say so.
func TestRevisionFallsBackToGitHead(t *testing.T) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v (the tests run inside the repository)", err)
	}
	head := strings.TrimSpace(string(out))
	got := Revision()
	if !strings.HasPrefix(got, head) {
		t.Fatalf("Revision() = %q, want it to start with HEAD %s", got, head)
	}
	if !strings.Contains(got, "not VCS-stamped") {
		t.Fatalf("Revision() = %q does not say the binary was not stamped", got)
	}
	if Revision() != got {
		t.Fatal("Revision() changed between calls")
	}
}

func TestGoVersion(t *testing.T) {
	if v := GoVersion(); !strings.HasPrefix(v, "go1.") {
		t.Fatalf("GoVersion() = %q", v)
	}
}

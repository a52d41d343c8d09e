package train

import "testing"

// TestStreamKeyVersion: a training key holds the stream's version only for
// streamed training and from version 2 on, so that nets streamed under
// version 1 (and every in-memory net) keep their keys while a changed order
// makes new ones.
func TestStreamKeyVersion(t *testing.T) {
	for _, tc := range []struct{ buffer, version, want int }{
		{0, 1, 0}, {0, 2, 0}, {1 << 20, 1, 0}, {1 << 20, 2, 2}, {1, 3, 3},
	} {
		if got := StreamKeyVersion(tc.buffer, tc.version); got != tc.want {
			t.Errorf("StreamKeyVersion(%d, %d) = %d, want %d", tc.buffer, tc.version, got, tc.want)
		}
	}
	if StreamVersion < 1 {
		t.Errorf("StreamVersion %d: versions start at 1", StreamVersion)
	}
}

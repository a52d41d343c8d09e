package train

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// editHeader returns a copy of a float net file (nets.WriteFloat's layout:
// magic, u32 header length, TOML header, payload) with the first old in
// its header replaced by new and the header length written again, as a
// careful hand edit would leave it.
func editHeader(t *testing.T, file []byte, old, new string) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(file[8:12]))
	h := string(file[12 : 12+n])
	if !strings.Contains(h, old) {
		t.Fatalf("header has no %q:\n%s", old, h)
	}
	h = strings.Replace(h, old, new, 1)
	var b bytes.Buffer
	b.Write(file[:8])
	binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	b.WriteString(h)
	b.Write(file[12+n:])
	return b.Bytes()
}

// TestCheckpointHeaderEdited: a checkpoint whose header was edited (the
// seed, the learning rate, the batch size in its config, its step count;
// same length or not) is refused on resume with an error naming the file,
// the way `nnuelab train --resume` reads it (the config from the
// checkpoint, then Run), instead of training a different net.
func TestCheckpointHeaderEdited(t *testing.T) {
	data := testData(t, 600)
	dir := t.TempDir()
	cfg := tinyConfig(t, dir, "screlu-768")
	cfg.Epochs = 1
	if _, err := Run(context.Background(), cfg, Options{Data: data}); err != nil {
		t.Fatal(err)
	}
	path := PathsFor(cfg.Out).Checkpoint
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"seed", `\"seed\":1,`, `\"seed\":2,`},
		{"lr", `\"LR\":0.01,`, `\"LR\":0.02,`},
		{"batch, same length", `\"batch\":256,`, `\"batch\":128,`},
		{"batch, shorter", `\"batch\":256,`, `\"batch\":64,`},
		{"step", `step = "3"`, `step = "2"`},
		{"epochs", `\"epochs\":1,`, `\"epochs\":2,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, editHeader(t, good, tc.old, tc.new), 0o644); err != nil {
				t.Fatal(err)
			}
			saved, err := CheckpointConfig(path)
			if err == nil {
				c := *saved
				c.Epochs = 2
				_, err = Run(context.Background(), c, Options{Data: data, Resume: true})
			}
			if err == nil {
				t.Fatalf("a checkpoint with %s edited (%s -> %s) resumed", tc.name, tc.old, tc.new)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "checksum") {
				t.Errorf("error %q does not name %s and its checksum", err, path)
			}
		})
	}
	// The intact checkpoint still resumes; so does one written before
	// checkpoints were sealed (no content_sha256 line), to the same net,
	// with a note that its header is not checked.
	first, _, _ := strings.Cut(string(good[12:]), "\n")
	old := editHeader(t, good, first+"\n", "")
	var full *Result
	for _, tc := range []struct {
		name, note string
		file       []byte
	}{{"intact", "", good}, {"unsealed (older)", "predates content checksums", old}} {
		if err := os.WriteFile(path, tc.file, 0o644); err != nil {
			t.Fatal(err)
		}
		c := cfg
		c.Epochs = 2
		var log bytes.Buffer
		resumed, err := Run(context.Background(), c, Options{Data: data, Resume: true, Log: &log})
		if err != nil {
			t.Fatalf("%s checkpoint: %v", tc.name, err)
		}
		if full == nil {
			full = resumed
		} else {
			sameTensors(t, full.Model, resumed.Model)
		}
		if tc.note != "" && !strings.Contains(log.String(), tc.note) {
			t.Errorf("%s checkpoint: log %q does not say %q", tc.name, log.String(), tc.note)
		}
		if tc.note == "" && strings.Contains(log.String(), "predates") {
			t.Errorf("%s checkpoint: log %q calls it old", tc.name, log.String())
		}
	}
}

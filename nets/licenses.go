package nets

import (
	"embed"
	"fmt"
)

// The licence texts of third-party nets, which their licences require to
// travel with every copy (the binary embeds the nets, so it embeds these).
//
//go:embed LICENSE-*.txt
var licenses embed.FS

// Notice returns the licence text shipped with the net, or "" for a net
// under nnuelab's own licence.
func (e *Entry) Notice() (string, error) {
	if e.LicenseFile == "" {
		return "", nil
	}
	b, err := licenses.ReadFile(e.LicenseFile)
	if err != nil {
		return "", fmt.Errorf("nets/manifest.toml: net %s: license_file %q: %w", e.File, e.LicenseFile, err)
	}
	return string(b), nil
}

package datasets

// ManifestPath returns where the manifest of the data file out lives: beside
// it as OUT.manifest.toml (datagen, label and shuffle write one; reports
// and plans read it).
func ManifestPath(out string) string { return out + ".manifest.toml" }

// PartsDir returns the folder a resumable writer of out (datagen, label)
// keeps its work in until out and its manifest are written.
func PartsDir(out string) string { return out + ".parts" }

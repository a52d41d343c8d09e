// Package data holds the experiments' built-in data, embedded in the
// binary so that a fresh clone runs the shipped experiments with nothing
// else on disk: the reference positions and Stockfish 15.1's evaluations
// of them, the validation positions and the opening book, named
// "builtin:NAME" in manifests. It reads them and position files on disk
// alike (Open, ReadPositions) and hashes them (FileSHA256), so that a
// plan keys a built-in file and a file on disk the same way.
package data

// Package syzygy probes Syzygy endgame tablebases: the .rtbw (win/draw/loss)
// and .rtbz (distance to zeroing) files of the public 3-7 piece sets, read
// in their own format.
//
// # Use
//
// Open scans directories for table files; ProbeWDL and ProbeDTZ answer for
// an engine/board position; Close unmaps. A Tables is safe for concurrent
// probes from any number of goroutines: the hot path takes no lock (a file
// is loaded once, behind a per-file mutex and an atomic pointer, on its
// first probe).
//
// # How it works
//
// A table holds every placement of its material's pieces, reduced by the
// board's symmetries and numbered by the format's index functions
// (index.go), for the side(s) to move it stores; the values are cut into
// blocks of a canonical Huffman code over symbols that each stand for one
// value or a pair of symbols (pairs.go). A probe maps the position onto
// the table (which side is the table's first, which side to move's table,
// the leading pawn's file), computes the index, finds the block through
// the index and size tables and decodes up to the value. Positions with
// en-passant rights, and positions where a capture is best, are resolved
// by the prober with a small search over captures, as the tables leave
// them to it; DTZ needs a further one-ply search when a table stores only
// the other side to move. These rules, and the signs and ±1/±101
// conventions of DTZ, follow the reference prober (Fathom, from the
// tables' author's code), and the tests hold this package to it position
// by position (testdata/fathom).
//
// # Values
//
// ProbeWDL's WDL is from the side to move and does not depend on the
// fifty-move counter: CursedWin and BlessedLoss are the results the rule
// changes for a position whose counter is 0. ProbeDTZ is signed: positive
// when the side to move wins, negative when it loses, 0 for a draw; see
// its doc for the conventions, and Rule50WDL for the value under the rule
// from a given counter (what fathom.linux prints). Positions with castling
// rights (ErrCastling), more pieces than the tables (ErrTooManyPieces) and
// illegal positions (ErrInvalidPosition) are refused; a material without
// a file gives a *MissingError naming the table, e.g. "KRNvKB".
//
// # Damaged files: what is guaranteed
//
// Every read from a mapped file is bounds-checked, and every structure a
// probe relies on is checked when the file is loaded: the magic number;
// the piece count, pawn flag and piece codes against the file's name; the
// group orders; the Huffman code (canonical, symbols forming a tree with
// no cycle, WDL leaves 0-4); and that the file's length is exactly what
// its header describes, to the byte. A file failing any of this is refused
// with a *CorruptError naming it, at its first probe, and every later
// probe needing it gets the same error; a damaged file never panics and
// never hangs a probe (each decode loop is bounded by the block's size).
//
// Structure cannot catch a flipped bit inside the compressed values, which
// would decode to another valid value. So every file up to
// Options.VerifyLimit bytes (DefaultVerifyLimit, 64 MiB) is also checked
// against the 16-byte checksum the generator embeds at its end, when it is
// first loaded (about 1 ms a MB on one core), and refused if it does not
// match: for such files, a truncated, bit-flipped or replaced file gives an
// error naming it, never a wrong value. Larger files (the big 6- and
// 7-piece tables, up to tens of GB, whose full read at first probe would
// stall a search) get the structural checks only; verify them once after
// download with CheckFile (`nnuelab tb check`). A file changed on disk
// while mapped is outside these guarantees.
package syzygy

package datasets

import (
	"bufio"
	"errors"
	"os"
)

// binpackMagic opens every block of a Stockfish binpack.
var binpackMagic = [4]byte{'B', 'I', 'N', 'P'}

// plainMagic opens a Stockfish .plain file (its first line is "fen ...").
var plainMagic = []byte("fen ")

var errTODO = errors.New("not implemented yet")

func newBinpackReader(br *bufio.Reader, name string, o Options) (Reader, error) { return nil, errTODO }
func newBinpackWriter(f *os.File, af *atomicFile) (Writer, error)               { return nil, errTODO }
func newPlainReader(br *bufio.Reader, name string, o Options) (Reader, error)   { return nil, errTODO }
func newPlainWriter(f *os.File, af *atomicFile) (Writer, error)                 { return nil, errTODO }

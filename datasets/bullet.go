package datasets

import (
	"bufio"
	"os"
)

func newBulletReader(br *bufio.Reader, name string, o Options) (Reader, error) { return nil, errTODO }
func newBulletWriter(f *os.File, af *atomicFile) (Writer, error)               { return nil, errTODO }

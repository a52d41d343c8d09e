package nnue

import (
	"errors"

	arch "github.com/nnuelab/nnuelab/archs"
)

func readSF12(spec *arch.Spec, r *reader) (*Network, error) {
	return nil, errors.New("sf12 reader: not yet")
}
func readSF15(spec *arch.Spec, r *reader) (*Network, error) {
	return nil, errors.New("sf15.1 reader: not yet")
}

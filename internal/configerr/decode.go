package configerr

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// DecodeTOML decodes the TOML document data, read from file, into v and
// checks it strictly, as every configuration file of nnuelab is read (an
// architecture, an experiment manifest, the claims, the ladder, a match
// configuration, the shipped nets' manifest). Every failure is an *Error
// naming file: a syntax error names its line; a value of the wrong type its
// key and line; a key with upper-case letters is refused (the decoder
// matches keys to fields without regard to case, so "Metrics" would
// otherwise pass for "metrics"), and so is a key v has no field for. free,
// if not nil, exempts keys (and those under them) from the last two checks:
// keys the caller checks itself, such as an experiment's grid.
func DecodeTOML(file string, data []byte, v any, free func(toml.Key) bool) (toml.MetaData, error) {
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return md, &Error{File: file, Reason: fmt.Sprintf("line %d: %s", pe.Position.Line, pe.Message)}
		}
		if m := decodeErrRE.FindStringSubmatch(err.Error()); m != nil {
			return md, &Error{File: file, Key: m[2], Reason: fmt.Sprintf("line %s: %s", m[1], m[3])}
		}
		return md, &Error{File: file, Reason: err.Error()}
	}
	exempt := func(k toml.Key) bool { return free != nil && free(k) }
	for _, k := range md.Keys() {
		if s := k.String(); s != strings.ToLower(s) && !exempt(k) {
			return md, &Error{File: file, Key: s, Reason: fmt.Sprintf("unknown key (keys are lower case: %q)", strings.ToLower(s))}
		}
	}
	for _, k := range md.Undecoded() {
		if !exempt(k) {
			return md, &Error{File: file, Key: k.String(), Reason: "unknown key"}
		}
	}
	return md, nil
}

// decodeErrRE picks the line, key and message out of the TOML decoder's
// type errors ("toml: line 25 (last key "quant.scale"): incompatible types: ...").
var decodeErrRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

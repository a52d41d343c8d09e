package uciclient

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// OptionCommand checks name=value against the options the engine declared
// (names and combo values case-insensitively, spins within their bounds,
// checks as true/false, on/off, yes/no or 1/0) and returns the setoption
// command for it, with the engine's own spelling.
func (e *Engine) OptionCommand(name, value string) (string, error) {
	d, ok := e.Options[strings.ToLower(name)]
	if !ok {
		names := make([]string, 0, len(e.Options))
		for _, x := range e.Options {
			names = append(names, x.Name)
		}
		slices.Sort(names)
		return "", fmt.Errorf("the engine has no UCI option %q (it has: %s)", name, strings.Join(names, ", "))
	}
	v := value
	switch strings.ToLower(d.Type) {
	case "button":
		return "setoption name " + d.Name, nil
	case "check":
		b, err := ParseBool(v)
		if err != nil {
			return "", fmt.Errorf("option %s is a check (true/false), got %q", d.Name, v)
		}
		v = strconv.FormatBool(b)
	case "spin":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", fmt.Errorf("option %s is a spin (integer), got %q", d.Name, v)
		}
		lo, err1 := strconv.ParseInt(d.Min, 10, 64)
		hi, err2 := strconv.ParseInt(d.Max, 10, 64)
		if err1 == nil && err2 == nil && (n < lo || n > hi) {
			return "", fmt.Errorf("option %s must be from %d to %d, got %d", d.Name, lo, hi, n)
		}
	case "combo":
		found := false
		for _, x := range d.Vars {
			if strings.EqualFold(x, v) {
				v, found = x, true
				break
			}
		}
		if !found {
			return "", fmt.Errorf("option %s must be one of %s, got %q", d.Name, strings.Join(d.Vars, ", "), v)
		}
	}
	return "setoption name " + d.Name + " value " + v, nil
}

// ParseBool reads a check option's value: true/false, on/off, yes/no or
// 1/0, in any case.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "on", "yes", "1":
		return true, nil
	case "false", "off", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", s)
}

// ParseOption parses "option name N type T [default D] [min M] [max X]
// [var V]...".
func ParseOption(s string) (Option, bool) {
	f := strings.Fields(s)
	if len(f) < 5 || f[1] != "name" {
		return Option{}, false
	}
	ti := -1
	for i := 2; i < len(f); i++ {
		if f[i] == "type" {
			ti = i
			break
		}
	}
	if ti < 3 || ti+1 >= len(f) {
		return Option{}, false
	}
	o := Option{Name: strings.Join(f[2:ti], " "), Type: f[ti+1]}
	key := ""
	var val []string
	flush := func() {
		v := strings.Join(val, " ")
		switch key {
		case "default":
			o.Default = v
		case "min":
			o.Min = v
		case "max":
			o.Max = v
		case "var":
			o.Vars = append(o.Vars, v)
		}
		val = val[:0]
	}
	for _, w := range f[ti+2:] {
		switch w {
		case "default", "min", "max", "var":
			flush()
			key = w
		default:
			val = append(val, w)
		}
	}
	flush()
	return o, true
}

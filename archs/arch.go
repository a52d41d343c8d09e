// Package archs parses and validates nnuelab's architecture files (the
// *.toml files in this folder, embedded in the binary, or any TOML file a
// user writes) into a Spec: the feature set and its parameters, the
// accumulator, the head, the quantization, the net file format and the
// accumulator history depth. An architecture is data, never a fork of the
// engine: engine/nnue builds a network from a Spec alone.
//
// Parsing is strict: an unknown key or a bad value is an error that names
// the file, the key and the reason.
package archs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/nnuelab/nnuelab/internal/configerr"
)

//go:embed *.toml
var builtin embed.FS

// Spec is a validated architecture.
type Spec struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
	// History is the accumulator history depth H: an evaluation walks back
	// at most H plies to a computed accumulator, else refreshes. 0 means
	// unlimited.
	History int `toml:"history"`
	// RefreshCache keeps one accumulator per king bucket and perspective
	// so that a refresh only applies the pieces that differ.
	//
	// History and RefreshCache are runtime settings: how the engine keeps
	// its accumulators, not what a net computes. An override of them
	// leaves the net's identity (NetSHA256) as it was.
	RefreshCache bool `toml:"refresh_cache"`

	Net         NetSpec         `toml:"net"`
	Features    FeatureSpec     `toml:"features"`
	Accumulator AccumulatorSpec `toml:"accumulator"`
	Head        HeadSpec        `toml:"head"`
	Quant       QuantSpec       `toml:"quant"`
	Output      OutputSpec      `toml:"output"`

	// Source is the file the spec was read from ("builtin:NAME.toml" for
	// the embedded ones).
	Source string `toml:"-"`

	// file holds the runtime settings as the architecture file gave them
	// (set by Parse; overrides leave it): what NetSHA256 hashes.
	file *runtime
}

// runtime are a spec's runtime settings (History, RefreshCache).
type runtime struct {
	history      int
	refreshCache bool
}

// SHA256 is the SHA-256 of the spec re-encoded as TOML (so that overrides
// count and comments do not): the architecture as the engine runs it,
// runtime settings included, which a variant's measurements depend on.
func (s *Spec) SHA256() string {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(s); err != nil {
		panic(err) // a Spec always encodes
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

// NetSHA256 identifies the net an architecture computes: its SHA256 with
// the runtime settings (history, refresh_cache) as the architecture file
// gives them, whatever an override set since. Trained nets are keyed by it
// and record it (a net file's arch_sha256), and a warm start or a resumed
// checkpoint must match it: a variant that changes only how the engine
// keeps accumulators is the same net. Hashing the file's values rather
// than none keeps the identity of every net trained before, whose
// architecture file held them. A spec not made by Parse hashes its own.
func (s *Spec) NetSHA256() string {
	if s.file == nil {
		return s.SHA256()
	}
	c := *s
	c.History, c.RefreshCache = s.file.history, s.file.refreshCache
	return c.SHA256()
}

// NetSpec says how network files of this architecture are stored.
type NetSpec struct {
	// Format names the reader: "sf12", "sf15.1", "sf17.1" (Stockfish 16+:
	// LEB128-compressed transformer), "sf18" (Stockfish 18's big net:
	// HalfKAv2_hm plus threat features), "koivisto-int16", "koivisto-float", "leorik", "nnuelab" (float32, quantized at load) or
	// "float" (no file: random or trained weights in memory, e.g. rengar).
	Format string `toml:"format"`
	// Default is the net file used when none is given: a path relative to
	// the repository's nets/ folder, or empty.
	Default string `toml:"default"`
	// Name is a Stockfish net's own name (nn-<first 12 hex digits of its
	// SHA-256>.nnue): the net used when none is given, taken from
	// nnuelab's net cache, where `nnuelab nets extract` and `nets fetch`
	// put it.
	Name string `toml:"name,omitempty"` // omitted when empty: the specs (and hashes) of the other designs stay as they were
	// Small names the architecture of a second, smaller net that the
	// design evaluates instead where Stockfish 17.1 does (head sf17:
	// Eval::use_smallnet), with its own net; empty for one net.
	Small string `toml:"small,omitempty"`
}

// FeatureSpec describes the input features. Set names a preset in the
// registry; the other keys override the preset's parameters, which is how an
// experiment ablates mirroring or a king-bucket table.
type FeatureSpec struct {
	// Set is one of halfkp, halfkav2_hm, koivisto16, leorik, chess768, rengar736.
	Set string `toml:"set"`
	// Orientation is how Black's perspective sees the board: "flip"
	// (vertical, sq^56) or "rotate" (180 degrees, sq^63).
	Orientation string `toml:"orientation"`
	// Mirror is the horizontal mirroring rule on the oriented own king:
	// "none", "king-efgh" (mirror files when the king is on e-h) or
	// "king-abcd" (mirror when on a-d, as Stockfish's HalfKAv2_hm).
	Mirror string `toml:"mirror"`
	// PlaneOrder orders the 12 piece planes: "own-first" (own P..K, then the
	// opponent's), "own-second", or "interleaved" (own pawn, their pawn,
	// own knight, ...).
	PlaneOrder string `toml:"plane_order"`
	// Kings says which kings are features: "both", "none" (HalfKP) or
	// "merged" (one shared king plane, HalfKAv2).
	Kings string `toml:"kings"`
	// PlaneOffset is the number of unused feature slots before the planes of
	// each king bucket (1 for HalfKP's "none" slot).
	PlaneOffset int `toml:"plane_offset"`
	// KingBuckets maps the oriented own-king square (a1 = 0 ... h8 = 63,
	// before mirroring) to a bucket; 64 entries.
	KingBuckets []int `toml:"king_buckets"`
	// Threats adds threat features beside the piece-square ones: "" (none)
	// or "full", Stockfish 18's Full_Threats (79,856 per perspective: piece
	// X on square a attacks piece Y on square b; docs/reference/sf18-nnue.md).
	// Omitted when empty, so the other designs' specs (and hashes) stay as
	// they were.
	Threats string `toml:"threats,omitempty"`
}

// AccumulatorSpec describes the feature transformer's output.
type AccumulatorSpec struct {
	// Width is the accumulator size per perspective (int16 entries).
	Width int `toml:"width"`
}

// HeadSpec describes what follows the accumulators.
type HeadSpec struct {
	// Type is "linear" (one output neuron per bucket: Koivisto, Leorik,
	// chess768), "sf12" (HalfKP 512-32-32-1), "sf15" (pairwise product, layer
	// stacks and PSQT), "sf17" (sf15's layers behind Stockfish 16+'s
	// transformer, with 17.1's Eval::evaluate: the blend of PSQT and
	// layers, the small net's choice, the material scaling), "sf18" (the
	// same with Stockfish 18's constants and WDL model) or "rengar"
	// (symmetric product pooling, float).
	Type string `toml:"type"`
	// Activation of the accumulators for a linear head: "relu", "crelu"
	// (clamp to [0, quant.qa]) or "screlu" (the square of that).
	Activation string `toml:"activation"`
	// Inputs of a linear head: "stm+opp" (both accumulators, side to move
	// first) or "stm" (side to move only).
	Inputs string `toml:"inputs"`
	// Layers are the sizes of the dense layers after the feature transform
	// (sf12: [32, 32, 1]; sf15: [16, 32, 1]).
	Layers []int `toml:"layers"`
	// OutputBuckets is the number of output buckets / layer stacks (1 = none).
	OutputBuckets int `toml:"output_buckets"`
	// BucketSelector picks the output bucket from the piece count (kings
	// included): "none", "(pieces-1)/4" or "(pieces-2)/4".
	BucketSelector string `toml:"bucket_selector"`
	// PSQTBuckets is the number of PSQT buckets (sf15: 8), 0 for none.
	PSQTBuckets int `toml:"psqt_buckets"`
}

// QuantSpec holds the quantization multipliers. For float nets they are
// applied at load time, so an experiment can change them without retraining.
type QuantSpec struct {
	// QA scales the feature weights and biases and is the clipped ReLU's
	// ceiling.
	QA int `toml:"qa"`
	// QB scales the output weights.
	QB int `toml:"qb"`
	// Scale multiplies the output before the division by QA*QB (Leorik 400).
	Scale int `toml:"scale"`
	// WeightShift is the dense layers' fixed-point shift (Stockfish: 6).
	WeightShift int `toml:"weight_shift"`
	// OutputDivisor divides the final sum (Stockfish: 16).
	OutputDivisor int `toml:"output_divisor"`
}

// OutputSpec says what the network's number means.
type OutputSpec struct {
	// Perspective is "stm" (side to move) or "white".
	Perspective string `toml:"perspective"`
	// CPNum and CPDen convert the internal units to centipawns:
	// cp = raw * CPNum / CPDen (truncated).
	CPNum int `toml:"cp_num"`
	CPDen int `toml:"cp_den"`
}

// Error is a problem in an architecture file: the file, the key and the
// reason (internal/configerr, the error of every strict config reader).
type Error = configerr.Error

// Builtin returns the names of the embedded architectures, sorted.
func Builtin() []string {
	entries, _ := builtin.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}

// Load returns the architecture called name (an embedded one such as
// "sf15.1") or, if name ends in .toml or contains a path separator, the
// file at that path.
func Load(name string) (*Spec, error) {
	if strings.HasSuffix(name, ".toml") || strings.ContainsRune(name, filepath.Separator) {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("architecture %s: %w", name, err)
		}
		return Parse(name, data)
	}
	data, err := builtin.ReadFile(name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("unknown architecture %q (built in: %s; or give a .toml path)", name, strings.Join(Builtin(), ", "))
	}
	return Parse("builtin:"+name+".toml", data)
}

// Parse decodes and validates one architecture file; file names it in errors.
func Parse(file string, data []byte) (*Spec, error) {
	// The multipliers and divisors first, from the raw document, so that
	// a zero, a float or a non-finite value is named by its key.
	var raw map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw); err == nil {
		if e := checkMultipliers(raw); e != nil {
			return nil, &Error{File: file, Key: e.key, Reason: e.reason}
		}
	}
	var s Spec
	md, err := configerr.DecodeTOML(file, data, &s, nil)
	if err != nil {
		return nil, err
	}
	s.Source = file
	if err := s.applyDefaults(md); err != nil {
		return nil, &Error{File: file, Key: err.key, Reason: err.reason}
	}
	if err := s.validate(); err != nil {
		return nil, &Error{File: file, Key: err.key, Reason: err.reason}
	}
	s.file = &runtime{history: s.History, refreshCache: s.RefreshCache}
	return &s, nil
}

// Override applies "key=value" assignments (TOML syntax for the value, keys
// dotted as in the file, e.g. "features.mirror=\"none\"" or "history=4") on
// top of the spec and revalidates: the way experiment variants are made.
// It is ParseOverrides then Apply.
func (s *Spec) Override(assignments ...string) (*Spec, error) {
	ovs, err := ParseOverrides(assignments...)
	if err != nil {
		e := *err.(*Error) // ParseOverrides' one error type
		e.File = s.Source
		return nil, &e
	}
	return s.Apply(ovs...)
}

// An Assignment is one override of an arch key, parsed: the dotted key as
// in the file and its TOML value (string, int64, float64, bool or []any of
// those). Apply converts the value to the type of the field the key names.
type Assignment struct {
	Key   string
	Value any
}

// ParseOverrides parses "key=value" assignments, the value in TOML syntax;
// it does not check that the keys exist (Apply does, on a spec). A bad
// assignment is an *Error naming it (File empty: the caller's).
func ParseOverrides(assignments ...string) ([]Assignment, error) {
	out := make([]Assignment, 0, len(assignments))
	for _, a := range assignments {
		o, err := parseOverride(a)
		if err != nil {
			return nil, &Error{Key: err.key, Reason: err.reason}
		}
		out = append(out, o)
	}
	return out, nil
}

// Apply sets each assignment's value, converted once to its field's type,
// on a copy of the spec's field its key names (by the fields' toml tags)
// and validates the result: a key that names no field, a value of the
// wrong type or a broken rule is an *Error naming the key.
func (s *Spec) Apply(ovs ...Assignment) (*Spec, error) {
	v := s.clone()
	for _, o := range ovs {
		if err := v.set(o); err != nil {
			return nil, &Error{File: s.Source, Key: o.Key, Reason: err.reason}
		}
	}
	v.Source = s.Source + " (overridden)"
	if err := v.validate(); err != nil {
		return nil, &Error{File: v.Source, Key: err.key, Reason: err.reason}
	}
	return v, nil
}

// parseOverride splits "key=value" and decodes the value as TOML.
func parseOverride(a string) (Assignment, *specError) {
	key, val, ok := strings.Cut(a, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Assignment{}, &specError{a, "override must be key=value"}
	}
	var doc map[string]any
	if _, err := toml.Decode("v = "+strings.TrimSpace(val), &doc); err != nil {
		return Assignment{}, &specError{key, "bad value: " + err.Error()}
	}
	return Assignment{Key: key, Value: doc["v"]}, nil
}

// clone copies the spec deeply enough that setting a field of the copy
// leaves s alone (the slices are the only shared storage).
func (s *Spec) clone() *Spec {
	v := *s
	v.Features.KingBuckets = append([]int(nil), s.Features.KingBuckets...)
	v.Head.Layers = append([]int(nil), s.Head.Layers...)
	return &v
}

// set stores o's value in the field its key names (by the fields' toml
// tags), converting the TOML value to the field's type; a key that names
// no field, or a value of the wrong type, is an error naming the key.
func (s *Spec) set(o Assignment) *specError {
	f := reflect.ValueOf(s).Elem()
	for _, part := range strings.Split(o.Key, ".") {
		if f.Kind() != reflect.Struct {
			return &specError{o.Key, "unknown key"}
		}
		next, ok := fieldByTag(f, part)
		if !ok {
			return &specError{o.Key, "unknown key"}
		}
		f = next
	}
	if f.Kind() == reflect.Struct {
		return &specError{o.Key, "is a table; assign its keys one by one"}
	}
	if isMultiplier(o.Key) {
		if e := checkMultiplier(o.Key, o.Value); e != nil {
			return e
		}
	}
	switch f.Kind() {
	case reflect.String:
		x, ok := o.Value.(string)
		if !ok {
			return typeError(o, "a string")
		}
		f.SetString(x)
	case reflect.Bool:
		x, ok := o.Value.(bool)
		if !ok {
			return typeError(o, "true or false")
		}
		f.SetBool(x)
	case reflect.Int:
		x, ok := o.Value.(int64)
		if !ok {
			return typeError(o, "an integer")
		}
		f.SetInt(x)
	case reflect.Slice:
		xs, ok := o.Value.([]any)
		if !ok {
			return typeError(o, "an array of integers")
		}
		ints := make([]int, len(xs))
		for i, x := range xs {
			n, ok := x.(int64)
			if !ok {
				return typeError(o, "an array of integers")
			}
			ints[i] = int(n)
		}
		f.Set(reflect.ValueOf(ints))
	default:
		return &specError{o.Key, "cannot be overridden"}
	}
	return nil
}

// fieldByTag finds the field of struct v whose toml tag is name.
func fieldByTag(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag == name && tag != "-" {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func typeError(o Assignment, want string) *specError {
	return &specError{o.Key, fmt.Sprintf("must be %s, got %T %v", want, o.Value, o.Value)}
}

type specError struct{ key, reason string }

// netNameRE is a Stockfish net name.
var netNameRE = regexp.MustCompile(`^nn-[0-9a-f]{12}\.nnue$`)

// multipliers are the keys whose value scales or divides an evaluation: a
// zero would make every evaluation 0 (or divide by zero), so unlike other
// integer keys, giving them 0 is an error rather than "use the default".
var multipliers = []struct{ table, key string }{
	{"quant", "qa"}, {"quant", "qb"}, {"quant", "scale"}, {"quant", "output_divisor"},
	{"output", "cp_num"}, {"output", "cp_den"},
}

// checkMultipliers checks the multiplier and divisor keys of a raw TOML
// document: each that is present must be a finite, non-zero integer (the
// sign is checked by validate).
func checkMultipliers(raw map[string]any) *specError {
	for _, m := range multipliers {
		tbl, ok := raw[m.table].(map[string]any)
		if !ok {
			continue
		}
		if v, ok := tbl[m.key]; ok {
			if e := checkMultiplier(m.table+"."+m.key, v); e != nil {
				return e
			}
		}
	}
	return nil
}

// isMultiplier tells whether key is one of the multipliers.
func isMultiplier(key string) bool {
	for _, m := range multipliers {
		if key == m.table+"."+m.key {
			return true
		}
	}
	return false
}

// checkMultiplier checks one multiplier's TOML value.
func checkMultiplier(key string, v any) *specError {
	switch x := v.(type) {
	case int64:
		if x == 0 {
			return &specError{key, "must not be 0: it multiplies or divides every evaluation (leave the key out for the default)"}
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &specError{key, fmt.Sprintf("must be a finite non-zero integer, got %v", x)}
		}
		return &specError{key, fmt.Sprintf("must be an integer, got the float %v", x)}
	default:
		return &specError{key, fmt.Sprintf("must be an integer, got %T %v", v, v)}
	}
	return nil
}

func oneOf(key, v string, allowed ...string) *specError {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return &specError{key, fmt.Sprintf("%q is not one of %s", v, strings.Join(allowed, ", "))}
}

func (s *Spec) validate() *specError {
	if s.Name == "" {
		return &specError{"name", "missing"}
	}
	if s.History < 0 {
		return &specError{"history", fmt.Sprintf("must be >= 0 (0 = unlimited), got %d", s.History)}
	}
	if e := oneOf("net.format", s.Net.Format, "sf12", "sf15.1", "sf17.1", "sf18", "koivisto-int16", "koivisto-float", "leorik", "nnuelab", "float"); e != nil {
		return e
	}
	if n := s.Net.Name; n != "" && !netNameRE.MatchString(n) {
		return &specError{"net.name", fmt.Sprintf("%q is not a Stockfish net name (nn-<12 lower-case hex digits>.nnue)", n)}
	}
	f := &s.Features
	if e := oneOf("features.set", f.Set, FeatureSets()...); e != nil {
		return e
	}
	if e := oneOf("features.orientation", f.Orientation, "flip", "rotate"); e != nil {
		return e
	}
	if e := oneOf("features.mirror", f.Mirror, "none", "king-efgh", "king-abcd"); e != nil {
		return e
	}
	if e := oneOf("features.plane_order", f.PlaneOrder, "own-first", "own-second", "interleaved"); e != nil {
		return e
	}
	if e := oneOf("features.kings", f.Kings, "both", "none", "merged"); e != nil {
		return e
	}
	if f.Kings == "merged" && f.PlaneOrder != "interleaved" {
		return &specError{"features.kings", `"merged" needs plane_order "interleaved"`}
	}
	if f.PlaneOffset < 0 || f.PlaneOffset > 64 {
		return &specError{"features.plane_offset", fmt.Sprintf("must be 0..64, got %d", f.PlaneOffset)}
	}
	if len(f.KingBuckets) != 64 {
		return &specError{"features.king_buckets", fmt.Sprintf("needs 64 entries (a1..h8), got %d", len(f.KingBuckets))}
	}
	seen := map[int]bool{}
	for i, b := range f.KingBuckets {
		if b < 0 || b > 63 {
			return &specError{"features.king_buckets", fmt.Sprintf("entry %d is %d, must be 0..63", i, b)}
		}
		seen[b] = true
	}
	for b := 0; b < len(seen); b++ {
		if !seen[b] {
			return &specError{"features.king_buckets", fmt.Sprintf("buckets must be numbered 0..%d without gaps; %d is unused", len(seen)-1, b)}
		}
	}
	switch f.Threats {
	case "":
	case "full":
		switch s.Net.Format {
		case "sf18", "nnuelab", "float":
		default:
			return &specError{"features.threats", fmt.Sprintf("threat features are held by Stockfish 18's nets (net.format \"sf18\") and nnuelab's own (\"nnuelab\", \"float\"), not by %q", s.Net.Format)}
		}
		if s.Head.Type == "rengar" {
			return &specError{"features.threats", "Rengar's head folds its own 768 features; it takes no threat features"}
		}
	default:
		return &specError{"features.threats", fmt.Sprintf("must be \"full\" (Stockfish 18's Full_Threats) or left out, got %q", f.Threats)}
	}
	if w := s.Accumulator.Width; w <= 0 || w%32 != 0 || w > 4096 {
		return &specError{"accumulator.width", fmt.Sprintf("must be a positive multiple of 32 up to 4096, got %d", w)}
	}
	h := &s.Head
	if e := oneOf("head.type", h.Type, "linear", "sf12", "sf15", "sf17", "sf18", "rengar"); e != nil {
		return e
	}
	if s.Net.Small != "" && h.Type != "sf17" && h.Type != "sf18" {
		return &specError{"net.small", fmt.Sprintf("a second, small net needs head type \"sf17\" or \"sf18\" (Stockfish 17.1's or 18's choice between them), not %q", h.Type)}
	}
	if e := oneOf("head.bucket_selector", h.BucketSelector, "none", "(pieces-1)/4", "(pieces-2)/4"); e != nil {
		return e
	}
	if h.OutputBuckets < 1 || h.OutputBuckets > 8 {
		return &specError{"head.output_buckets", fmt.Sprintf("must be 1..8, got %d", h.OutputBuckets)}
	}
	if (h.OutputBuckets > 1) != (h.BucketSelector != "none") {
		return &specError{"head.bucket_selector", fmt.Sprintf("%q does not fit %d output bucket(s)", h.BucketSelector, h.OutputBuckets)}
	}
	if h.PSQTBuckets < 0 || h.PSQTBuckets > 8 {
		return &specError{"head.psqt_buckets", fmt.Sprintf("must be 0..8, got %d", h.PSQTBuckets)}
	}
	switch h.Type {
	case "linear":
		if e := oneOf("head.activation", h.Activation, "relu", "crelu", "screlu"); e != nil {
			return e
		}
		if e := oneOf("head.inputs", h.Inputs, "stm+opp", "stm"); e != nil {
			return e
		}
	case "sf12":
		if len(h.Layers) != 3 || h.Layers[2] != 1 {
			return &specError{"head.layers", fmt.Sprintf("sf12 head needs [hidden1, hidden2, 1], got %v", h.Layers)}
		}
	case "sf15", "sf17", "sf18":
		if len(h.Layers) != 3 || h.Layers[2] != 1 || h.Layers[0] < 2 {
			return &specError{"head.layers", fmt.Sprintf("%s head needs [fc0, fc1, 1], got %v", h.Type, h.Layers)}
		}
		if h.PSQTBuckets != h.OutputBuckets {
			return &specError{"head.psqt_buckets", h.Type + " head needs as many PSQT buckets as layer stacks"}
		}
	}
	for i, l := range h.Layers {
		if l <= 0 || l > 4096 {
			return &specError{"head.layers", fmt.Sprintf("layer %d size %d out of range", i, l)}
		}
	}
	q := &s.Quant
	if q.QA <= 0 || q.QA > 32767 {
		return &specError{"quant.qa", fmt.Sprintf("must be 1..32767, got %d", q.QA)}
	}
	if q.QB <= 0 || q.QB > 32767 {
		return &specError{"quant.qb", fmt.Sprintf("must be 1..32767, got %d", q.QB)}
	}
	if h.Type == "linear" && h.Activation != "relu" && q.QA > 255 {
		return &specError{"quant.qa", fmt.Sprintf("a clipped activation needs qa <= 255 (the clip ceiling), got %d", q.QA)}
	}
	if q.Scale <= 0 {
		return &specError{"quant.scale", fmt.Sprintf("must be positive, got %d", q.Scale)}
	}
	if q.OutputDivisor <= 0 {
		return &specError{"quant.output_divisor", fmt.Sprintf("must be positive, got %d", q.OutputDivisor)}
	}
	if q.WeightShift < 0 || q.WeightShift > 16 {
		return &specError{"quant.weight_shift", fmt.Sprintf("must be 0..16, got %d", q.WeightShift)}
	}
	if e := s.validateHead(); e != nil {
		return e
	}
	if e := oneOf("output.perspective", s.Output.Perspective, "stm", "white"); e != nil {
		return e
	}
	if s.Output.CPNum <= 0 {
		return &specError{"output.cp_num", fmt.Sprintf("must be positive (with cp_den), got %d", s.Output.CPNum)}
	}
	if s.Output.CPDen <= 0 {
		return &specError{"output.cp_den", fmt.Sprintf("must be positive (with cp_num), got %d", s.Output.CPDen)}
	}
	return nil
}

// Bounds of the Stockfish heads' sizes: engine/nnue keeps their per-call
// buffers as arrays on the stack (no allocation, and a network stays
// shareable), sized by these, so a spec asking for more is refused here.
const (
	// MaxSFTransformed bounds the bytes of the transformed feature vector
	// of an sf12 head (twice the width) and of an sf15 head (the width).
	MaxSFTransformed = 2048
	// MaxSF17Transformed bounds it for sf17 and sf18 heads (17.1: 3072).
	MaxSF17Transformed = 4096
	// MaxSFDense bounds the outputs (and padded inputs) of a dense layer.
	MaxSFDense = 128
)

// pad32 rounds n up to a multiple of 32: the stride of Stockfish's dense
// weight rows.
func pad32(n int) int { return (n + 31) &^ 31 }

// validateHead checks what a head type and a net format fix: the formats'
// head types, the Stockfish heads' sizes and quantization, Rengar's
// shape. These are the architecture's rules, so that an override that
// breaks them fails when the spec is made (a dry run), not in the net
// reader, the quantizer or the trainer, which rely on them.
func (s *Spec) validateHead() *specError {
	h, q, w := &s.Head, &s.Quant, s.Accumulator.Width
	heads := map[string][]string{"sf12": {"sf12"}, "sf15.1": {"sf15"}, "sf17.1": {"sf17", "sf18"}, "sf18": {"sf17", "sf18"}}
	if want, ok := heads[s.Net.Format]; ok {
		if e := oneOf("head.type", h.Type, want...); e != nil {
			e.reason = fmt.Sprintf("net format %s needs head type %s, got %q", s.Net.Format, strings.Join(want, " or "), h.Type)
			return e
		}
	}
	if s.Net.Format == "sf18" && s.Features.Threats != "full" {
		return &specError{"features.threats", "net format sf18 (Stockfish 18's big net) holds threat features: give threats = \"full\""}
	}
	switch h.Type {
	case "sf12":
		switch {
		case 2*w > MaxSFTransformed:
			return &specError{"accumulator.width", fmt.Sprintf("the sf12 head supports accumulator widths up to %d, got %d", MaxSFTransformed/2, w)}
		case pad32(h.Layers[0]) > MaxSFDense || pad32(h.Layers[1]) > MaxSFDense:
			return &specError{"head.layers", fmt.Sprintf("the sf12 head supports hidden layers up to %d, got %v", MaxSFDense, h.Layers)}
		case h.OutputBuckets != 1 || h.PSQTBuckets != 0:
			return &specError{"head.output_buckets", fmt.Sprintf("the sf12 head has no output buckets or PSQT, got %d and %d", h.OutputBuckets, h.PSQTBuckets)}
		case q.QA > 255:
			return &specError{"quant.qa", fmt.Sprintf("the sf12 head needs quant.qa <= 255 (its activations are uint8), got %d", q.QA)}
		}
	case "sf15", "sf17", "sf18":
		maxWidth := MaxSF17Transformed
		if h.Type == "sf15" {
			maxWidth = MaxSFTransformed
		}
		l0, l1 := h.Layers[0], h.Layers[1]
		switch {
		case w > maxWidth || w%64 != 0:
			return &specError{"accumulator.width", fmt.Sprintf("the %s head needs an accumulator width that is a multiple of 64 up to %d, got %d", h.Type, maxWidth, w)}
		case pad32(l0) > MaxSFDense || pad32(2*(l0-1)) > MaxSFDense || pad32(l1) > MaxSFDense:
			return &specError{"head.layers", fmt.Sprintf("the %s head supports layers up to %d wide (fc_1 input 2*(fc_0-1)), got %v", h.Type, MaxSFDense, h.Layers)}
		case q.QA != 127:
			return &specError{"quant.qa", fmt.Sprintf("the %s head needs quant.qa = 127 (the pairwise product's clip is fixed by the format), got %d", h.Type, q.QA)}
		case q.WeightShift > 12:
			return &specError{"quant.weight_shift", fmt.Sprintf("the %s head needs quant.weight_shift <= 12, got %d", h.Type, q.WeightShift)}
		}
	case "rengar":
		switch {
		case w != 32:
			return &specError{"accumulator.width", fmt.Sprintf("the rengar head needs width 32 (per subspace), got %d", w)}
		case s.Features.Size() != 768:
			return &specError{"features.set", fmt.Sprintf("the rengar head folds 768 features (rengar736), got %q with %d", s.Features.Set, s.Features.Size())}
		case q.QA&(q.QA-1) != 0:
			return &specError{"quant.qa", fmt.Sprintf("the rengar head needs quant.qa to be a power of two (exact fixed-point sums), got %d", q.QA)}
		}
	}
	return nil
}

// Validate checks a spec against every rule of an architecture file, as
// Parse and Override do: for a spec changed after them (a test's edit), so
// that a net reader refuses it by the same rules. The error names the
// key.
func (s *Spec) Validate() error {
	if e := s.validate(); e != nil {
		return &Error{File: s.Source, Key: e.key, Reason: e.reason}
	}
	return nil
}

// NumKingBuckets returns the number of distinct king buckets.
func (f *FeatureSpec) NumKingBuckets() int {
	n := 0
	for _, b := range f.KingBuckets {
		if b+1 > n {
			n = b + 1
		}
	}
	return n
}

// Planes returns the number of 64-square piece planes per king bucket.
func (f *FeatureSpec) Planes() int {
	switch f.Kings {
	case "none":
		return 10
	case "merged":
		return 11
	}
	return 12
}

// Stride returns the number of features per king bucket.
func (f *FeatureSpec) Stride() int { return f.PlaneOffset + 64*f.Planes() }

// Size returns the number of piece-square input features per perspective
// (threat features not included: ThreatSize).
func (f *FeatureSpec) Size() int { return f.NumKingBuckets() * f.Stride() }

// FullThreatsSize is the number of Stockfish 18's Full_Threats features
// per perspective.
const FullThreatsSize = 79856

// Inputs returns the number of input features per perspective, threat
// features included: the rows of the feature transformer, piece-square
// features first.
func (f *FeatureSpec) Inputs() int { return f.Size() + f.ThreatSize() }

// ThreatSize returns the number of threat features per perspective (0
// without threats).
func (f *FeatureSpec) ThreatSize() int {
	if f.Threats == "full" {
		return FullThreatsSize
	}
	return 0
}

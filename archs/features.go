package archs

import "github.com/BurntSushi/toml"

// featurePreset is a feature set's default parameters.
type featurePreset struct {
	orientation, mirror, planeOrder, kings string
	planeOffset                            int
	kingBuckets                            [64]int
}

var presets = map[string]featurePreset{
	// Stockfish 12: 64 king squares x 641 (slot 0 unused), kings not
	// features, Black's view rotated by 180 degrees.
	"halfkp": {"rotate", "none", "interleaved", "none", 1, identityBuckets()},
	// Stockfish 15.1: 32 mirrored king buckets x 704, one shared king plane.
	"halfkav2_hm": {"flip", "king-abcd", "interleaved", "merged", 0, sfBuckets()},
	// Koivisto 7.11-9.2: 16 king chunks x 768, own pieces second, files
	// mirrored when the king is on e-h.
	"koivisto16": {"flip", "king-efgh", "own-second", "both", 0, [64]int{
		0, 1, 2, 3, 3, 2, 1, 0,
		4, 5, 6, 7, 7, 6, 5, 4,
		8, 9, 10, 11, 11, 10, 9, 8,
		8, 9, 10, 11, 11, 10, 9, 8,
		12, 12, 13, 13, 13, 13, 12, 12,
		12, 12, 13, 13, 13, 13, 12, 12,
		14, 14, 15, 15, 15, 15, 14, 14,
		14, 14, 15, 15, 15, 15, 14, 14,
	}},
	// Leorik 3.2: 5 king buckets x 768, own pieces first, mirrored on e-h.
	"leorik": {"flip", "king-efgh", "own-first", "both", 0, [64]int{
		0, 0, 1, 1, 1, 1, 0, 0,
		2, 2, 3, 3, 3, 3, 2, 2,
		2, 2, 3, 3, 3, 3, 2, 2,
		4, 4, 4, 4, 4, 4, 4, 4,
		4, 4, 4, 4, 4, 4, 4, 4,
		4, 4, 4, 4, 4, 4, 4, 4,
		4, 4, 4, 4, 4, 4, 4, 4,
		4, 4, 4, 4, 4, 4, 4, 4,
	}},
	// Plain 768: colour x piece x square from each side's view.
	"chess768": {"flip", "none", "own-first", "both", 0, [64]int{}},
	// Rengar's 184 folded features in four symmetric subspaces; the
	// network code builds them itself, these parameters are unused.
	"rengar736": {"flip", "none", "own-first", "both", 0, [64]int{}},
}

// FeatureSets returns the names of the feature-set registry.
func FeatureSets() []string {
	return []string{"halfkp", "halfkav2_hm", "koivisto16", "leorik", "chess768", "rengar736"}
}

func identityBuckets() (t [64]int) {
	for i := range t {
		t[i] = i
	}
	return t
}

// sfBuckets is HalfKAv2_hm's table over the vertically oriented king square:
// the king is mirrored onto files e-h and numbered from h8.
func sfBuckets() (t [64]int) {
	for s := range t {
		file, rank := s&7, s>>3
		if file <= 3 {
			file = 7 - file
		}
		t[s] = 4*(7-rank) + (7 - file)
	}
	return t
}

// applyDefaults fills what the file left out: the feature set's preset
// parameters and neutral head, quantization and output settings.
func (s *Spec) applyDefaults(md toml.MetaData) *specError {
	f := &s.Features
	p, ok := presets[f.Set]
	if !ok {
		return oneOf("features.set", f.Set, FeatureSets()...)
	}
	def := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	def(&f.Orientation, p.orientation)
	def(&f.Mirror, p.mirror)
	def(&f.PlaneOrder, p.planeOrder)
	def(&f.Kings, p.kings)
	if !md.IsDefined("features", "plane_offset") {
		f.PlaneOffset = p.planeOffset
	}
	if f.KingBuckets == nil {
		f.KingBuckets = append([]int(nil), p.kingBuckets[:]...)
	}
	h := &s.Head
	if h.OutputBuckets == 0 {
		h.OutputBuckets = 1
	}
	def(&h.BucketSelector, "none")
	def(&h.Inputs, "stm+opp")
	// Defaults only for keys left out: an explicit 0 stays 0 and is
	// rejected (checkMultipliers, validate), never silently replaced.
	q := &s.Quant
	if !md.IsDefined("quant", "scale") {
		q.Scale = 1
	}
	if !md.IsDefined("quant", "output_divisor") {
		q.OutputDivisor = 1
	}
	def(&s.Output.Perspective, "stm")
	num, den := md.IsDefined("output", "cp_num"), md.IsDefined("output", "cp_den")
	switch {
	case !num && !den:
		s.Output.CPNum, s.Output.CPDen = 1, 1
	case num != den:
		missing := "output.cp_den"
		if !num {
			missing = "output.cp_num"
		}
		return &specError{missing, "missing: cp_num and cp_den are given together"}
	}
	return nil
}

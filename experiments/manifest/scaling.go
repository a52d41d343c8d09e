package manifest

import (
	"errors"
	"fmt"
	"math"
)

// ScalingSpec asks a report for the Elo-versus-data curve of variants that
// differ only in how much self-play they trained on (the [scaling] table):
// their Elo against the base is fitted to log2 of their self-play
// positions, and the line is read off where it reaches Goal, with the
// self-play and CPU time that implies.
type ScalingSpec struct {
	// Variants are the curve's points: trained variants, each with an Elo
	// against the base.
	Variants []string `toml:"variants"`
	// Goal is the Elo against the base the extrapolation looks for (issue
	// 24: -200, within 200 Elo of the reference).
	Goal float64 `toml:"goal"`
	// PositionsPerCPUSecond is self-play's measured rate with the player
	// net (one core), which turns positions into CPU time; 0 leaves the
	// time out.
	PositionsPerCPUSecond float64 `toml:"positions_per_cpu_second"`
	// Rate says where that rate was measured (a doc and the command).
	Rate string `toml:"rate"`
}

func (s *ScalingSpec) check(m *Manifest) error {
	if len(s.Variants) < 2 {
		return errors.New("needs two variants or more (the points of the curve)")
	}
	for _, name := range s.Variants {
		ok := false
		for _, v := range m.Variants {
			ok = ok || v.Name == name
		}
		if !ok {
			return fmt.Errorf("variant %q is not one of the manifest's variants", name)
		}
	}
	if m.Elo == nil || m.Train == nil {
		return errors.New("needs [train] (the points are trained) and [elo] (their Elo against the base)")
	}
	if math.IsNaN(s.Goal) || math.IsInf(s.Goal, 0) || s.PositionsPerCPUSecond < 0 || math.IsNaN(s.PositionsPerCPUSecond) {
		return fmt.Errorf("goal %v and positions_per_cpu_second %v must be finite, the rate not negative", s.Goal, s.PositionsPerCPUSecond)
	}
	return nil
}

package report

import (
	"fmt"
	"strings"

	"github.com/nnuelab/nnuelab/experiments/records"
)

// selfplaySection is the table of what each variant's own self-play cost
// and the Elo it bought per CPU-hour, or "" when no variant trained on
// self-play whose tasks recorded their cost. Issue 46 compares datagen
// recipes by this: each gets about the same CPU, so the Elo per CPU-hour
// ranks them once the CPU actually spent differs a little.
func selfplaySection(sums []*summary, eloVs string) string {
	found := false
	for _, s := range sums {
		if _, ok := s.get(records.MetricSelfplayCPUHours); ok {
			found = true
		}
	}
	if !found {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Self-play cost\n\n")
	fmt.Fprintf(&b, "What each variant's own self-play cost, from its datagen tasks' nodes and CPU seconds (a resumed shard records its last run; the whole set is estimated at the recorded rates), and its Elo against %s per CPU-hour of that self-play. Rates are CPU seconds of one process on a machine shared with other work: compare them within a report, not across machines.\n\n", eloVs)
	b.WriteString("| variant | positions | nodes a position | nodes per CPU-second | CPU-hours | Elo vs " + eloVs + " | Elo per CPU-hour |\n|---|---|---|---|---|---|---|\n")
	for _, s := range sums {
		a, ok := s.get(records.MetricSelfplayCPUHours)
		if !ok {
			if s.base {
				fmt.Fprintf(&b, "| %s | not recorded (data from a file) | | | | 0 (base) | |\n", s.label)
			}
			continue
		}
		nodesPerPos, _ := a.detail["nodes_per_position"].(float64)
		perCPU, _ := a.detail["nodes_per_cpu_second"].(float64)
		elo, perHour := "–", "–"
		if e, ok := s.get("elo"); ok && !s.base {
			elo = fmt.Sprintf("%+.1f", e.value())
			if h := a.value(); h > 0 {
				perHour = fmt.Sprintf("%+.1f", e.value()/h)
			}
		}
		if s.base {
			elo = "0 (base)"
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.2fM | %.2f | %s | %s |\n", s.label, thousands(int64(a.n/max(a.seeds, 1))), nodesPerPos, perCPU/1e6, a.value(), elo, perHour)
	}
	return b.String()
}

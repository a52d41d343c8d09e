package report

import (
	"fmt"
)

// EloValueText is an Elo value as reports print it: "+∞ (4-0-0)" for an
// infinite one (details "infinite", with the wins, draws and losses).
func EloValueText(v float64, detail map[string]any) string {
	inf, ok := detail["infinite"].(string)
	if !ok {
		return fmt.Sprintf("%+.1f", PlusZero(v))
	}
	sym := "+∞"
	if inf == "-inf" {
		sym = "−∞"
	}
	return fmt.Sprintf("%s (%v-%v-%v)", sym, detail["wins"], detail["draws"], detail["losses"])
}

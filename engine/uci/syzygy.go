package uci

import (
	"strings"
	"sync"

	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// Syzygy options: Stockfish's names, defaults and ranges.
const (
	defaultTBProbeDepth = 1
	defaultTBProbeLimit = 7
	maxTBProbeDepth     = 100
)

// tbOptions are the Syzygy* options and the tables SyzygyPath opened.
type tbOptions struct {
	path       string
	tables     *syzygy.Tables
	probeDepth int
	probeLimit int
	rule50     bool
	// warned holds the probe errors already reported: search goes on
	// without a table it cannot read and says so once.
	warned sync.Map
}

func newTBOptions() tbOptions {
	return tbOptions{probeDepth: defaultTBProbeDepth, probeLimit: defaultTBProbeLimit, rule50: true}
}

// sayTBOptions lists the Syzygy options for "uci".
func (e *Engine) sayTBOptions() {
	e.say("option name SyzygyPath type string default <empty>")
	e.say("option name SyzygyProbeDepth type spin default %d min 1 max %d", defaultTBProbeDepth, maxTBProbeDepth)
	e.say("option name Syzygy50MoveRule type check default true")
	e.say("option name SyzygyProbeLimit type spin default %d min 0 max 7", defaultTBProbeLimit)
}

// setSyzygyPath opens the tables in the directories of path (separated by
// ':', as Stockfish on Unix); "" or "<empty>" drops them. A path that
// cannot be opened is refused and the tables in use stay.
func (e *Engine) setSyzygyPath(path string) {
	path = strings.TrimSpace(path)
	if path == "<empty>" {
		path = ""
	}
	var tables *syzygy.Tables
	if path != "" {
		var dirs []string
		for _, d := range strings.Split(path, ":") {
			if d = strings.TrimSpace(d); d != "" {
				dirs = append(dirs, d)
			}
		}
		var err error
		if tables, err = syzygy.Open(dirs...); err != nil {
			e.errorf("setoption SyzygyPath: %v (tables stay as they were)", err)
			return
		}
		e.say("info string found %d tablebase files, up to %d pieces, in %s", len(tables.Files()), tables.MaxPieces(), path)
	}
	if e.tb.tables != nil {
		e.tb.tables.Close()
	}
	e.tb.path, e.tb.tables = path, tables
	e.tb.warned = sync.Map{}
	e.applyTB()
}

// applyTB hands the tables and options to the search threads.
func (e *Engine) applyTB() {
	c := search.TBConfig{ProbeDepth: e.tb.probeDepth, ProbeLimit: e.tb.probeLimit, Rule50: e.tb.rule50, Warn: e.tbWarn}
	if e.tb.tables != nil {
		c.Tables = search.Syzygy(e.tb.tables)
	}
	if e.tb.probeLimit == 0 {
		c.Tables = nil // SyzygyProbeLimit 0: no probes
	}
	e.pool.SetTablebase(c)
}

// tbWarn reports a failed probe once per message (search threads call it).
func (e *Engine) tbWarn(err error) {
	if _, seen := e.tb.warned.LoadOrStore(err.Error(), true); !seen {
		e.say("info string syzygy: %v (searching on without it)", err)
	}
}

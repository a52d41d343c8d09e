package inspect

import "github.com/nnuelab/nnuelab/engine/nnue"

// rengarCeil is Rengar's clamp, ±127/128, as the engine's Trace carries
// its float activations (nnue.RengarTraceScale fixed point): the
// statistics' saturation ceiling for both of its traced layers.
const rengarCeil = 127 * nnue.RengarTraceScale / 128

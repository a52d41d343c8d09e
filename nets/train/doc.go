// Package train is nnuelab's trainer: float32 training, on the CPU, of
// every network architecture that archs/ describes with a linear, sf12
// (Stockfish 12 HalfKP) or rengar head, from the TOML alone.
//
// The model mirrors engine/nnue exactly: features are the engine's own
// indices (nnue.FeatureSet), the transformer is the dual-perspective
// accumulator (or the side to move's only), and each head computes in
// float what nnue.FromFloat's quantized head computes in integers, so a
// trained net (nets.WriteFloat) loads into the engine and evaluates within
// the quantization error. Rengar's symmetric product-pooling net is trained
// through its tied 184x32 embeddings, so its symmetries hold by
// construction.
//
// Training is deterministic: every sum has a fixed order independent of
// the thread count, so a seed gives the same net on any number of threads
// (see engine.go). Weights are clipped after every step to what the
// architecture's quantization can represent. Each epoch ends with a
// validation loss, an atomic checkpoint (weights and optimizer state), the
// float net and a CSV loss history; a run resumes from its checkpoint.
// Exporters write the published formats (Koivisto int16 and float,
// Leorik int16, Stockfish 12 .nnue) that engine/nnue's own readers load.
package train

// Package pluginpb is the generated Go code of the nnuelab plugin protocol
// (proto/nnuelab/plugin/v1/plugin.proto): the Evaluator and Metric gRPC
// services and their messages. Regenerate with `go generate` in plugins/sdk.
package pluginpb

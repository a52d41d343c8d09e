// Package sdk is the nnuelab plugin SDK: the protocol between the engine and
// out-of-process evaluators and metrics, served over gRPC and started by
// hashicorp/go-plugin, with helpers to write a plugin in a few lines and to
// start one from a host.
//
// A Go evaluator plugin is a main package that calls Serve:
//
//	func main() {
//		sdk.Serve(sdk.Plugins{Evaluator: &sdk.Func{
//			Description: &pluginpb.Description{Name: "mine", Version: "1",
//				Units: pluginpb.Units_UNITS_CENTIPAWNS,
//				PointOfView: pluginpb.PointOfView_POINT_OF_VIEW_SIDE_TO_MOVE},
//			Eval: func(b *sdk.Board) (float32, error) { return 0, nil },
//		}})
//	}
//
// Plugins in other languages implement the services of
// proto/nnuelab/plugin/v1/plugin.proto, check the magic cookie (MagicCookieKey
// = MagicCookieValue in the environment), serve grpc.health.v1.Health with
// service "plugin" SERVING, and print the go-plugin handshake line
// "1|1|tcp|127.0.0.1:PORT|grpc" on standard output (core protocol 1, then
// ProtocolVersion). plugins/README.md has the details.
package sdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// ProtocolVersion is the application protocol version of the nnuelab plugin
// protocol (the second field of go-plugin's handshake line). It changes only
// when the protocol changes incompatibly.
const ProtocolVersion = 1

// The magic cookie a plugin checks so that it is not started by hand by
// mistake (go-plugin's convention; it is not a security measure).
const (
	MagicCookieKey   = "NNUELAB_PLUGIN"
	MagicCookieValue = "d7d1f1b4-nnuelab-evaluator-plugin"
)

// Handshake is the go-plugin handshake configuration shared by the host and
// Go plugins.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   MagicCookieKey,
	MagicCookieValue: MagicCookieValue,
}

// The names under which plugins are dispensed.
const (
	EvaluatorPlugin = "evaluator"
	MetricPlugin    = "metric"
)

// maxMessage bounds gRPC messages both ways (a metric request carries a
// whole position set).
const maxMessage = 1 << 30

// grpcPlugin adapts the services to go-plugin's GRPCPlugin interface.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	register func(s *grpc.Server)
	client   func(c *grpc.ClientConn) any
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	p.register(s)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return p.client(c), nil
}

// clientPlugins is the plugin set a host dispenses from.
func clientPlugins() plugin.PluginSet {
	return plugin.PluginSet{
		EvaluatorPlugin: &grpcPlugin{client: func(c *grpc.ClientConn) any { return pluginpb.NewEvaluatorClient(c) }},
		MetricPlugin:    &grpcPlugin{client: func(c *grpc.ClientConn) any { return pluginpb.NewMetricClient(c) }},
	}
}

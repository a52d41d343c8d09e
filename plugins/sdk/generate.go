package sdk

// Regenerate the protocol code in pluginpb after editing the .proto; needs
// protoc (Debian: protobuf-compiler), protoc-gen-go and protoc-gen-go-grpc on
// PATH (see plugins/README.md). The generated code is committed, so building
// needs none of them.
//go:generate protoc -I proto --go_out=pluginpb --go_opt=module=github.com/nnuelab/nnuelab/plugins/sdk/pluginpb --go-grpc_out=pluginpb --go-grpc_opt=module=github.com/nnuelab/nnuelab/plugins/sdk/pluginpb nnuelab/plugin/v1/plugin.proto

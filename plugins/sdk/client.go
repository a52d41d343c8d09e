package sdk

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// LaunchConfig says how a host starts a plugin.
type LaunchConfig struct {
	// Path is the plugin executable; Args and Env (KEY=VALUE) are added to
	// its command line and to the host's environment.
	Path string
	Args []string
	Env  []string
	// StartTimeout bounds the handshake (default 20 s).
	StartTimeout time.Duration
	// Stderr receives the plugin's standard error (default: discarded).
	Stderr io.Writer
	// Logger receives go-plugin's own log (default: none, or standard
	// error at the level NNUELAB_PLUGIN_LOG names, e.g. "debug").
	Logger hclog.Logger
}

// Client is a running plugin process seen from the host.
type Client struct {
	pc  *plugin.Client
	rpc plugin.ClientProtocol
	cmd *exec.Cmd
}

// Launch starts the plugin, performs go-plugin's handshake (magic cookie,
// protocol versions, gRPC) and connects to it.
func Launch(cfg LaunchConfig) (*Client, error) {
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 20 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
		if lvl := os.Getenv("NNUELAB_PLUGIN_LOG"); lvl != "" {
			cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: os.Stderr, Level: hclog.LevelFromString(lvl)})
		}
	}
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	pc := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          clientPlugins(),
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env has it already
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     cfg.StartTimeout,
		Stderr:           cfg.Stderr,
		Logger:           cfg.Logger,
	})
	rpc, err := pc.Client()
	if err != nil {
		pc.Kill()
		return nil, fmt.Errorf("starting plugin %s: %w", cfg.Path, err)
	}
	return &Client{pc: pc, rpc: rpc, cmd: cmd}, nil
}

// Evaluator returns the plugin's evaluator service.
func (c *Client) Evaluator() (pluginpb.EvaluatorClient, error) {
	raw, err := c.rpc.Dispense(EvaluatorPlugin)
	if err != nil {
		return nil, err
	}
	return raw.(pluginpb.EvaluatorClient), nil
}

// Metric returns the plugin's metric service.
func (c *Client) Metric() (pluginpb.MetricClient, error) {
	raw, err := c.rpc.Dispense(MetricPlugin)
	if err != nil {
		return nil, err
	}
	return raw.(pluginpb.MetricClient), nil
}

// Exited reports whether the plugin process has ended.
func (c *Client) Exited() bool { return c.pc.Exited() }

// Pid returns the plugin's process id, 0 if unknown.
func (c *Client) Pid() int {
	if rc := c.pc.ReattachConfig(); rc != nil {
		return rc.Pid
	}
	return 0
}

// Kill ends the plugin: a graceful shutdown request first, then the kill
// signal.
func (c *Client) Kill() { c.pc.Kill() }

// ExitStatus describes how the plugin process ended ("exit status 2",
// "signal: killed"), "" while it runs.
func (c *Client) ExitStatus() string {
	if !c.pc.Exited() || c.cmd.ProcessState == nil {
		return ""
	}
	return c.cmd.ProcessState.String()
}

// ForceKill kills the plugin process at once (for a plugin that hangs),
// then cleans up as Kill does.
func (c *Client) ForceKill() {
	if c.cmd.Process != nil && !c.pc.Exited() {
		_ = c.cmd.Process.Kill()
	}
	c.pc.Kill()
}

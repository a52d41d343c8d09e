package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/nnuelab/nnuelab/engine/eval/plugin"
)

// Importing engine/eval/plugin makes "plugin:NAME" architectures available
// to the UCI Arch option and to `nnuelab eval --arch`.

func init() {
	register(command{"plugins", "list the evaluator plugins found (plugin:NAME architectures) and what they say of themselves", runPlugins})
}

func runPlugins(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plugins", "plugins [--describe]", stderr)
	describe := fs.Bool("describe", false, "start each plugin and print its description")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintf(stdout, "# searched: %v (set %s to add directories)\n", plugin.Dirs(), plugin.EnvDirs)
	found := plugin.Discover()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	for _, name := range plugin.Names() {
		if !*describe {
			fmt.Fprintf(tw, "%s%s\t%s\n", plugin.Prefix, name, found[name])
			continue
		}
		ev, err := plugin.Open(name, "")
		if err != nil {
			fmt.Fprintf(tw, "%s%s\t%s\terror: %v\n", plugin.Prefix, name, found[name], err)
			continue
		}
		d := ev.Description()
		fmt.Fprintf(tw, "%s%s\t%s\t%s %s, %v, %v, stateless=%v: %s\n", plugin.Prefix, name, found[name],
			d.Name, d.Version, d.Units, d.PointOfView, d.Stateless, d.Summary)
		ev.Close()
	}
	if *describe {
		plugin.Shutdown()
	}
	return nil
}

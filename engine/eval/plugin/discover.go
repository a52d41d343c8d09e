package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// EnvDirs names the environment variable that lists plugin directories
// (separated by the OS path-list separator, ':' on Unix).
const EnvDirs = "NNUELAB_PLUGINS"

// Dirs returns the directories searched for plugins, in order: those
// listed in $NNUELAB_PLUGINS, then plugins/bin under the current directory,
// then plugins/bin beside the running executable (where `make plugins`
// puts them for an engine built at the repository root by `make`).
func Dirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv(EnvDirs)) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, filepath.Join(wd, "plugins", "bin"))
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "plugins", "bin"))
	}
	seen := map[string]bool{}
	out := dirs[:0]
	for _, d := range dirs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// Find returns the executable of the evaluator plugin called name: name
// itself when it is a path (contains a separator), else the first
// executable file of that name in Dirs.
func Find(name string) (string, error) { return findIn("", name) }

// MetricsDir is the subdirectory of each plugin directory that holds metric
// plugins (plugins/bin/metrics), kept apart so that they are not offered
// as evaluators.
const MetricsDir = "metrics"

// FindMetric returns the executable of the metric plugin called name (a
// path, or a file in the MetricsDir of one of Dirs). Start it with
// sdk.Launch and call its Metric service.
func FindMetric(name string) (string, error) { return findIn(MetricsDir, name) }

func findIn(sub, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("empty plugin name")
	}
	if strings.ContainsRune(name, filepath.Separator) {
		if !executable(name) {
			return "", fmt.Errorf("plugin %s: not an executable file", name)
		}
		return name, nil
	}
	var tried []string
	for _, d := range Dirs() {
		d = filepath.Join(d, sub)
		tried = append(tried, d)
		if p := filepath.Join(d, name); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("plugin %q not found in %s (build plugins with `make plugins`, or set %s)", name, strings.Join(tried, ", "), EnvDirs)
}

// Discover returns the plugins found in Dirs, name to path (the first
// directory that has a name wins).
func Discover() map[string]string {
	found := map[string]string{}
	for _, d := range Dirs() {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, en := range entries {
			p := filepath.Join(d, en.Name())
			if _, dup := found[en.Name()]; !dup && !strings.HasPrefix(en.Name(), ".") && executable(p) {
				found[en.Name()] = p
			}
		}
	}
	return found
}

// Names returns the names Discover finds, sorted.
func Names() []string {
	var names []string
	for n := range Discover() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

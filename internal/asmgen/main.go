// Command asmgen writes the project's amd64 assembly with avo
// (github.com/mmcloughlin/avo): the AVX2 kernels of engine/nnue/simd and the
// AVX2+FMA kernels of nets/train/vec, each as a .s file and a Go file of
// declarations (the stubs), from the kernel builders in simd.go and vec.go.
//
// It is its own module so that avo is a requirement of the generator only,
// not of nnuelab: nothing in the project imports it, and the workspace does
// not list it, so it runs with GOWORK=off. Each package's go:generate line
// runs it:
//
//	go generate ./engine/nnue/simd ./nets/train/vec
//
// or, from this folder, `GOWORK=off go run . simd vec`. The generated files
// are committed; TestGeneratedFilesUpToDate (make test) fails when they
// differ from what the generator writes.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
)

// A target is one package whose assembly the generator writes.
type target struct {
	path  string     // import path
	dir   string     // folder, relative to the repository root
	asm   string     // the .s file's name in dir
	stubs string     // the Go declarations' file name in dir
	build func(*gen) // adds the package's kernels
	// isa lists the instruction-set extensions the package's kernels may
	// use (outside its ISA-named kernels, e.g. fmaPeakAVX512): avo names
	// what each function needs, and anything else, notably an AVX-512
	// encoding that a register above Y15 would force, is an error.
	isa []string
}

// targets are the packages the generator writes, by package name; adding
// a package is one entry here and one kernel builder.
var targets = map[string]target{
	"simd": {
		path: "github.com/nnuelab/nnuelab/engine/nnue/simd", dir: "engine/nnue/simd",
		asm: "kernels_amd64.s", stubs: "kernels_stubs_amd64.go",
		build: simdKernels, isa: []string{"AVX", "AVX2", "CMOV", "POPCNT", "MMX+", "SSE"},
	},
	"search": {
		path: "github.com/nnuelab/nnuelab/engine/search", dir: "engine/search",
		asm: "prefetch_amd64.s", stubs: "prefetch_stubs_amd64.go",
		build: searchKernels, isa: []string{"MMX+", "SSE"},
	},
	"vec": {
		path: "github.com/nnuelab/nnuelab/nets/train/vec", dir: "nets/train/vec",
		asm: "vec_amd64.s", stubs: "vec_stubs_amd64.go",
		build: vecKernels, isa: []string{"AVX", "AVX2", "FMA3"},
	},
}

// generate returns the files of package name (target's asm and stubs) as
// the generator writes them.
func generate(name string) (map[string][]byte, error) {
	t, ok := targets[name]
	if !ok {
		return nil, fmt.Errorf("unknown package %q (have %s)", name, strings.Join(names(), ", "))
	}
	g := newGen(t.path, name)
	t.build(g)
	f, err := g.Result()
	if err != nil {
		return nil, err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkISA(f, t.isa); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cfg := printer.Config{
		Name: fmt.Sprintf("internal/asmgen (go generate ./%s)", t.dir),
		Pkg:  name,
	}
	out := map[string][]byte{}
	for file, p := range map[string]printer.Printer{t.asm: printer.NewGoAsm(cfg), t.stubs: printer.NewStubs(cfg)} {
		b, err := p.Print(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out[file] = b
	}
	return out, nil
}

// checkISA fails when a function needs an extension outside allowed, unless
// the function's name ends in that extension's name (fmaPeakAVX512).
func checkISA(f *ir.File, allowed []string) error {
	for _, fn := range f.Functions() {
		for _, isa := range fn.ISA {
			if slices.Contains(allowed, isa) {
				continue
			}
			if strings.HasPrefix(isa, "AVX512") && strings.HasSuffix(fn.Name, "AVX512") {
				continue
			}
			return fmt.Errorf("%s needs %s (a register above Y15 forces an AVX-512 encoding; use fewer live registers)", fn.Name, isa)
		}
	}
	return nil
}

// names lists the packages the generator knows, sorted.
func names() []string {
	var s []string
	for n := range targets {
		s = append(s, n)
	}
	slices.Sort(s)
	return s
}

// main generates the packages named on the command line into their folders
// below -root, writing only the files whose contents change.
func main() {
	root := flag.String("root", "../..", "the repository root (the default is right when run from internal/asmgen)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: asmgen [-root DIR] PACKAGE...\n\nwrites the assembly and Go declarations of each PACKAGE (%s)\n", strings.Join(names(), ", "))
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, name := range flag.Args() {
		files, err := generate(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "asmgen:", err)
			os.Exit(1)
		}
		for file, b := range files {
			path := filepath.Join(*root, targets[name].dir, file)
			if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
				continue
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "asmgen:", err)
				os.Exit(1)
			}
			fmt.Fprintln(os.Stderr, "asmgen: wrote", path)
		}
	}
}

package main

import (
	"bufio"
	"errors"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// importRule says which packages of this module a package may reach,
// directly or through others. Only production files count: tests may
// import what they like.
type importRule struct {
	pkg string // relative to the module; "" is the main package
	// allowed, if not nil, is everything pkg may reach; forbidden is what
	// it may never reach.
	allowed   []string
	forbidden []string
}

// importRules is design §1: imports go one way, main -> client, attach,
// mux; client -> attach -> wire; mux -> wire, ptyproc, proc, screen; the
// client half (client, attach) and mux never import each other. internal/rawio, the raw system calls wire and ptyproc
// share, is a leaf below them both.
var importRules = []importRule{
	{pkg: "internal/rawio", allowed: []string{}},
	{pkg: "wire", allowed: []string{"internal/rawio"}},
	{pkg: "attach", allowed: []string{"wire", "internal/rawio"}},
	{pkg: "client", allowed: []string{"attach", "wire", "internal/rawio"}},
	{pkg: "mux", forbidden: []string{"attach", "client", ""}},
	{pkg: "ptyproc", forbidden: []string{"mux", "attach", "client", ""}},
	{pkg: "proc", forbidden: []string{"mux", "attach", "client", ""}},
	{pkg: "screen", forbidden: []string{"mux", "attach", "client", ""}},
}

func TestImportRules(t *testing.T) {
	module := modulePath(t)
	name := func(rel string) string {
		if rel == "" {
			return module
		}
		return module + "/" + rel
	}
	// OS-specific files differ in what they import; every platform wr
	// builds on must keep the rules.
	for _, goos := range []string{"linux", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			graph := moduleImports(t, module, goos)
			for _, r := range importRules {
				t.Run(name(r.pkg), func(t *testing.T) {
					if _, ok := graph[r.pkg]; !ok {
						t.Fatalf("no package %s: update importRules if it moved", name(r.pkg))
					}
					for dep, via := range reachable(graph, r.pkg) {
						bad := slices.Contains(r.forbidden, dep) ||
							(r.allowed != nil && !slices.Contains(r.allowed, dep))
						if bad {
							path := make([]string, len(via))
							for i, p := range via {
								path[i] = name(p)
							}
							t.Errorf("%s imports %s (%s); design §1 forbids it",
								name(r.pkg), name(dep), strings.Join(path, " -> "))
						}
					}
				})
			}
		})
	}
}

// modulePath reads the module path from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

// moduleImports maps every package of the module (by directory relative to
// the module root, "" for the root) to the module packages its production
// files import when built for goos.
func moduleImports(t *testing.T, module, goos string) map[string][]string {
	t.Helper()
	ctx := build.Default
	ctx.GOOS = goos
	ctx.CgoEnabled = false
	graph := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != "." {
			base := d.Name()
			if base == "testdata" || base == "vendor" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		pkg, err := ctx.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(pkg.GoFiles)+len(pkg.CgoFiles) == 0 {
			return nil // test-only, like integration/
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = ""
		}
		var deps []string
		for _, imp := range pkg.Imports {
			switch {
			case imp == module:
				deps = append(deps, "")
			case strings.HasPrefix(imp, module+"/"):
				deps = append(deps, strings.TrimPrefix(imp, module+"/"))
			}
		}
		graph[rel] = deps
		return nil
	})
	if err != nil {
		t.Fatalf("reading packages: %v", err)
	}
	return graph
}

// reachable returns every module package that pkg imports directly or
// indirectly, each with one import chain that leads to it.
func reachable(graph map[string][]string, pkg string) map[string][]string {
	via := map[string][]string{}
	queue := []string{pkg}
	chain := map[string][]string{pkg: {pkg}}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		deps := slices.Clone(graph[p])
		sort.Strings(deps)
		for _, d := range deps {
			if _, ok := chain[d]; ok {
				continue
			}
			chain[d] = append(slices.Clone(chain[p]), d)
			via[d] = chain[d]
			queue = append(queue, d)
		}
	}
	return via
}

// The checker itself: a rule break is reported with its import chain.
func TestReachable(t *testing.T) {
	graph := map[string][]string{
		"":       {"attach", "mux"},
		"mux":    {"wire", "proc"},
		"proc":   {"attach"},
		"attach": {"wire"},
		"wire":   nil,
	}
	got := reachable(graph, "mux")
	want := map[string][]string{
		"wire":   {"mux", "wire"},
		"proc":   {"mux", "proc"},
		"attach": {"mux", "proc", "attach"},
	}
	if len(got) != len(want) {
		t.Fatalf("reachable = %v, want %v", got, want)
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("reachable[%q] = %v, want %v", k, got[k], v)
		}
	}
}

// TestBinaryLeavesOutSlowInits: each package linked into wr runs its init
// before main in every wr process, the client of each attach among them,
// whether the process uses it or not. These were measured with
// GODEBUG=inittrace=1 and left out on purpose: crypto/rand and crypto
// under it (about 30 µs; session IDs use math/rand/v2), and urfave/cli's
// man page renderer (blackfriday, 0.3 ms; the urfave_cli_no_docs tag).
func TestBinaryLeavesOutSlowInits(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "urfave_cli_no_docs", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, slow := range []string{"crypto/rand", "crypto/internal/fips140", "github.com/russross/blackfriday/v2"} {
		if slices.Contains(deps, slow) {
			t.Errorf("wr links %s again; its init runs before every attach", slow)
		}
	}
}

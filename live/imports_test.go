package live

import (
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/gameadmin/admin"

// packageImports returns the imports of the non-test .go files in dir, each
// with a file that has it. Build constraints are ignored: a file for any
// platform counts.
func packageImports(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			out[p] = f
		}
	}
	if len(files) == 0 {
		t.Fatalf("no .go files in %s", dir)
	}
	return out
}

// TestNoPanelImport: live, and every package of this module it reaches,
// does not import the panel (the module's root package). A game server
// that runs live rooms builds none of the panel; the contract lives in
// package rooms, which imports nothing of this module.
func TestNoPanelImport(t *testing.T) {
	root := ".." // this package's directory is <module>/live
	seen := map[string]bool{}
	queue := []string{modulePath + "/live"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, modulePath+"/")))
		for imp, file := range packageImports(t, dir) {
			inModule := imp == modulePath || strings.HasPrefix(imp, modulePath+"/")
			switch {
			case imp == modulePath:
				t.Errorf("%s (package %s, reached from live) imports the panel %s", file, pkg, imp)
			case pkg == modulePath+"/rooms" && inModule:
				t.Errorf("%s: package rooms imports %s; it must import nothing of this module", file, imp)
			case inModule:
				queue = append(queue, imp)
			}
		}
	}
	// The walk reached what it should: if live stops importing rooms this
	// test says so rather than pass on an empty closure.
	for _, want := range []string{modulePath + "/live", modulePath + "/rooms"} {
		if !seen[want] {
			t.Errorf("the walk from live did not reach %s; reached %v", want, slices.Sorted(maps.Keys(seen)))
		}
	}
}

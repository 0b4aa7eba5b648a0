package history

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the module's path, as its go.mod says.
func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(p)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// TestNarrowImports: a row's History, its revert and the audit log's
// view, and every package they stand on, never import the panel,
// neither the root package nor the engine.
func TestNarrowImports(t *testing.T) {
	root := filepath.Join("..", "..") // this package's directory is <module>/internal/history
	module := modulePath(t, root)
	engine := path.Join(module, "internal", "engine")
	seen := map[string]bool{}
	queue := []string{path.Join(module, "internal", "history")}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, module+"/")))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range f.Imports {
				imp, _ := strconv.Unquote(s.Path.Value)
				switch {
				case imp == module, imp == engine:
					t.Errorf("package %s (reached from internal/history) imports %s", pkg, imp)
				case strings.HasPrefix(imp, module+"/"):
					queue = append(queue, imp)
				}
			}
		}
	}
	for _, want := range []string{"rows", "audit", "moderation"} {
		if !seen[path.Join(module, "internal", want)] {
			t.Errorf("the walk from internal/history did not reach internal/%s", want)
		}
	}
}

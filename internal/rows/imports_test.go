package rows

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/gameadmin/admin"

// TestNarrowImports: the read projection and the write gate, and every
// package they stand on, never import the panel, neither the root
// package nor the engine.
func TestNarrowImports(t *testing.T) {
	root := filepath.Join("..", "..") // this package's directory is <module>/internal/rows
	seen := map[string]bool{}
	queue := []string{modulePath + "/internal/rows"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, modulePath+"/")))
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
				case imp == modulePath, imp == modulePath+"/internal/engine":
					t.Errorf("package %s (reached from internal/rows) imports %s", pkg, imp)
				case strings.HasPrefix(imp, modulePath+"/"):
					queue = append(queue, imp)
				}
			}
		}
	}
}

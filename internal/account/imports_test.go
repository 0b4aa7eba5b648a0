package account

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

// imports are the module's packages the non-test files of dir import.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
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
			p, _ := strconv.Unquote(s.Path.Value)
			if p == modulePath || strings.HasPrefix(p, modulePath+"/") {
				out = append(out, p)
			}
		}
	}
	return out
}

// TestNarrowImports: the accounts and what they stand on (moderation,
// users) never import the panel, neither the root package nor the
// engine, and moderation never imports the accounts: Auth calls
// moderation's sanctions, never the other way round.
func TestNarrowImports(t *testing.T) {
	root := filepath.Join("..", "..") // this package's directory is <module>/internal/account
	seen := map[string]bool{}
	queue := []string{modulePath + "/internal/account"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		for _, imp := range imports(t, filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, modulePath+"/")))) {
			switch {
			case imp == modulePath, imp == modulePath+"/internal/engine":
				t.Errorf("package %s (reached from internal/account) imports %s", pkg, imp)
			case imp == modulePath+"/internal/account":
				t.Errorf("package %s imports internal/account back", pkg)
			default:
				queue = append(queue, imp)
			}
		}
	}
	for _, want := range []string{"/internal/moderation", "/internal/users"} {
		if !seen[modulePath+want] {
			t.Errorf("the walk from internal/account did not reach %s", want)
		}
	}
}

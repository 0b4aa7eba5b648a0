package admin

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is this module's path; the examples, the bench, redisstore and
// internal/dbtest are modules of their own and not walked here.
const module = "github.com/gameadmin/admin"

// TestLayout holds the shape docs/architecture.md draws, so that a change
// that breaks it fails here rather than in a review:
//   - the root holds the public API, at most 12 non-test files;
//   - no package of the module imports the root but cmd/gameadmin-sql
//     (a program that prints the root's migrations), and none imports the
//     engine but the root: the engine's concerns are packages that stand
//     on their own;
//   - moderation never imports the accounts (Auth calls moderation's one
//     ban, unban and revoke, never the other way round);
//   - rooms, the contract a game's live runtime implements, imports
//     nothing of the module, so live and a game's own runtime get none of
//     the panel;
//   - no type has more than 40 methods, and none of the engine more than
//     25: its endpoints are handler types built over what each uses
//     (internal/engine/routes.go), not methods of one type that reaches
//     everything.
func TestLayout(t *testing.T) {
	imports := map[string][]string{} // package -> what its non-test files import
	methods := map[string]int{}      // package.Type -> methods
	rootFiles := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own
				}
			}
			if base := d.Name(); base == "node_modules" || base == "testdata" || strings.HasPrefix(base, ".") && p != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		pkg := path.Join(module, filepath.ToSlash(filepath.Dir(p)))
		if filepath.Dir(p) == "." {
			pkg = module
			rootFiles++
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, s := range f.Imports {
			imp, _ := strconv.Unquote(s.Path.Value)
			imports[pkg] = append(imports[pkg], imp)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if idx, ok := typ.(*ast.IndexExpr); ok {
				typ = idx.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				methods[pkg+"."+id.Name]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rootFiles > 12 {
		t.Errorf("the root package has %d non-test files; the public API fits in 12", rootFiles)
	}
	engine := module + "/internal/engine"
	for pkg, imps := range imports {
		for _, imp := range imps {
			switch {
			case imp == module && pkg != module+"/cmd/gameadmin-sql":
				t.Errorf("%s imports the root package", pkg)
			case imp == engine && pkg != module:
				t.Errorf("%s imports the engine", pkg)
			case imp == module+"/internal/account" && pkg == module+"/internal/moderation":
				t.Errorf("moderation imports the accounts")
			case pkg == module+"/rooms" && strings.HasPrefix(imp, module):
				t.Errorf("rooms imports %s", imp)
			}
		}
	}
	for _, want := range []string{engine, module + "/internal/rows", module + "/live"} {
		if imports[want] == nil {
			t.Errorf("the walk found no package %s", want)
		}
	}
	for typ, n := range methods {
		limit := 40
		if strings.HasPrefix(typ, engine+".") {
			limit = 25
		}
		if n > limit {
			t.Errorf("%s has %d methods; a type over %d holds more than one concern", typ, n, limit)
		}
	}
}

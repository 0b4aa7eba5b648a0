package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUILocales: the languages PUT /auth/locale takes are the UI's, the
// directories of ui/src/locales: a language added to one side only is
// caught here.
func TestUILocales(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "..", "ui", "src", "locales"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	slices.Sort(dirs)
	want := slices.Sorted(slices.Values(uiLocales))
	if !slices.Equal(dirs, want) {
		t.Fatalf("ui/src/locales has %v; uiLocales is %v: add the language to both, or to neither", dirs, want)
	}
}

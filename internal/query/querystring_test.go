package query

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/schema"
)

// TestLoadZone: _tz takes IANA names only, and its error names _tz.
func TestLoadZone(t *testing.T) {
	if _, err := loadZone("Asia/Tokyo"); err != nil {
		t.Errorf("loadZone(Asia/Tokyo) = %v", err)
	}
	for _, bad := range []string{"", "Local", "Mars/Olympus", "../etc/passwd", "/etc/localtime"} {
		if _, err := loadZone(bad); err == nil || err.(*Error).Column != TZParam {
			t.Errorf("loadZone(%q) = %v; want an error naming _tz", bad, err)
		}
	}
}

// TestParseKeyPath: a _key value's key is a dot path whose segments are
// bare or JSON strings; a bare integer is an index too. Other tools'
// path syntaxes are refused, naming the parameter and the syntax to use.
func TestParseKeyPath(t *testing.T) {
	k := func(name string) KeyStep { return KeyStep{Name: name} }
	ix := func(name string) KeyStep { return KeyStep{Name: name, Index: true} }
	tests := []struct {
		raw  string
		path []KeyStep
		rest string
	}{
		{"level:3", []KeyStep{k("level")}, "3"},
		{"key:txn:T9", []KeyStep{k("key")}, "txn:T9"},
		{"stats.level:3", []KeyStep{k("stats"), k("level")}, "3"},
		{`stats.level:"3"`, []KeyStep{k("stats"), k("level")}, `"3"`},
		{"items.0.id:7", []KeyStep{k("items"), ix("0"), k("id")}, "7"},
		{"0:x", []KeyStep{ix("0")}, "x"},
		{"levels.007:x", []KeyStep{k("levels"), ix("007")}, "x"},
		{"a.-1:x", []KeyStep{k("a"), k("-1")}, "x"},
		{"a.+1:x", []KeyStep{k("a"), k("+1")}, "x"},
		{"a.99999999999:x", []KeyStep{k("a"), k("99999999999")}, "x"},
		{`"a.b".c:3`, []KeyStep{k("a.b"), k("c")}, "3"},
		{`"0".x:3`, []KeyStep{k("0"), k("x")}, "3"},
		{`"a:b":3`, []KeyStep{k("a:b")}, "3"},
		{`"say \"hi\"":1`, []KeyStep{k(`say "hi"`)}, "1"},
		{`"back\\slash":1`, []KeyStep{k(`back\slash`)}, "1"},
		{`"it's\";--":1`, []KeyStep{k(`it's";--`)}, "1"},
		{`"\u00e9t\u00e9":1`, []KeyStep{k("été")}, "1"},
		{`"":1`, []KeyStep{k("")}, "1"},
		{"$ref:x", []KeyStep{k("$ref")}, "x"},
		{"a/b:x", []KeyStep{k("a/b")}, "x"},
		{"with space:x", []KeyStep{k("with space")}, "x"},
		{"a:", []KeyStep{k("a")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			path, rest, err := parseKeyPath("inventory_key", tt.raw)
			if err != nil || !reflect.DeepEqual(path, tt.path) || rest != tt.rest {
				t.Errorf("parseKeyPath(%q) = %v, %q, %v; want %v, %q", tt.raw, path, rest, err, tt.path, tt.rest)
			}
		})
	}
	for _, raw := range []string{
		"", ":3", "level", "stats.level",
		"$.stats.level:3", "$[0]:3", "/stats/level:3", "stats->level:3", "stats->>level:3", "stats->'level':3",
		"stats..level:3", ".level:3", "stats.:3", "items[0].id:3", "items.[0]:3",
		`say"hi:1`, `"unclosed:1`, `"a"b:1`, `"bad \x":1`, `"a".:1`,
		strings.Repeat("a.", maxKeyDepth) + "a:1",
	} {
		_, _, err := parseKeyPath("inventory_key", raw)
		if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeInvalidValue ||
			!strings.HasPrefix(e.Message, "inventory_key: ") || !strings.Contains(e.Message, "stats.level:3") {
			t.Errorf("parseKeyPath(%q) = %v; want invalid_value naming inventory_key and the dot path", raw, err)
		}
	}
	if _, _, err := parseKeyPath("k", strings.Repeat("a.", maxKeyDepth-1)+"a:1"); err != nil {
		t.Errorf("parseKeyPath(%d segments) = %v; want the path", maxKeyDepth, err)
	}
}

// TestKeyFilterValue: _key decodes the value as JSON, else keeps the
// text, and refuses an object or array.
func TestKeyFilterValue(t *testing.T) {
	c := &schema.Column{Name: "inventory", DataType: schema.JSON}
	for raw, want := range map[string]any{
		"stats.level:3":        json.Number("3"),
		`stats.level:"3"`:      "3",
		"stats.level:three":    "three",
		"stats.level:true":     true,
		"stats.level:null":     nil,
		`"a.b".c:x:y`:          "x:y",
		"stats.level:3 apples": "3 apples",
	} {
		f, err := parseKindFilter(c, Key, "inventory_key", raw)
		if err != nil || f.Value.(KeyValue).Value != want {
			t.Errorf("parseKindFilter(%q) = %#v, %v; want value %#v", raw, f.Value, err, want)
		}
	}
	if _, err := parseKindFilter(c, Key, "inventory_key", "stats:[3]"); err == nil {
		t.Errorf(`parseKindFilter("stats:[3]") = nil error; want a refusal`)
	}
}

// FuzzParseKeyPath: parseKeyPath never panics, and a path it reads,
// written back with every segment quoted, reads the same (quoted
// segments are keys only).
func FuzzParseKeyPath(f *testing.F) {
	for _, s := range []string{"level:3", "stats.level:3", "items.0.id:7", `"a.b".c:3`, `"say \"hi\"":1`,
		"$.a:1", "/a/b:1", "a->b:1", "a..b:1", "a[0]:1", `"\ud800":1`, `"a\`, "a.\"b\".c:\"d\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkText("k", raw) != nil {
			return // refused before the path is read
		}
		path, rest, err := parseKeyPath("k", raw)
		if err != nil {
			return
		}
		if len(path) == 0 || len(path) > maxKeyDepth {
			t.Fatalf("parseKeyPath(%q) = %d segments", raw, len(path))
		}
		parts := make([]string, len(path))
		want := make([]KeyStep, len(path))
		for i, s := range path {
			b, _ := json.Marshal(s.Name)
			parts[i], want[i] = string(b), KeyStep{Name: s.Name}
		}
		again, rest2, err := parseKeyPath("k", strings.Join(parts, ".")+":"+rest)
		if err != nil || !reflect.DeepEqual(again, want) || rest2 != rest {
			t.Fatalf("parseKeyPath(%q) = %v, %q; quoted it reads %v, %q, %v", raw, path, rest, again, rest2, err)
		}
	})
}

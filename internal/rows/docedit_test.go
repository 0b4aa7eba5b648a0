package rows

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/uptrace/bun/dialect"

	"github.com/gameadmin/admin/internal/errbody"
)

func decoded(t *testing.T, s string) any {
	t.Helper()
	v, err := DecodeDoc(json.RawMessage(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// TestMergePatchApply: RFC 7396's examples (Appendix A).
func TestMergePatchApply(t *testing.T) {
	tests := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		{`null`, `{"n":9007199254740993}`, `{"n":9007199254740993}`}, // NULL is {}; numbers exact
	}
	for _, tt := range tests {
		target := decoded(t, tt.target)
		p := MergePatch(decoded(t, tt.patch).(map[string]any))
		if got := jsonText(p.Apply(target)); got != tt.want {
			t.Errorf("MergePatch(%s, %s) = %s; want %s", tt.target, tt.patch, got, tt.want)
		}
		if jsonText(target) != jsonText(decoded(t, tt.target)) {
			t.Errorf("MergePatch(%s, %s) changed its target", tt.target, tt.patch)
		}
	}
}

func TestCheckMergePatch(t *testing.T) {
	deep := map[string]any{"x": 1}
	for range maxPatchDepth {
		deep = map[string]any{"d": deep}
	}
	wide := map[string]any{}
	for i := range maxPatchNodes + 1 {
		wide[strings.Repeat("k", i+1)] = nil
	}
	packed := map[string]any{}
	for i := range 5000 {
		packed[strings.Repeat("k", i+1)] = 1 // plain values: one parameter whatever their number
	}
	for _, tt := range []struct {
		name string
		p    map[string]any
		ok   bool
	}{{"deep", deep, false}, {"wide", wide, false}, {"packed", packed, true}, {"small", map[string]any{"a": map[string]any{"b": nil}}, true}} {
		err := CheckMergePatch("inventory", tt.p)
		var e *errbody.Error
		if tt.ok != (err == nil) || err != nil && (!errors.As(err, &e) || e.Code != "invalid_value" || e.Fields["inventory"] == "") {
			t.Errorf("CheckMergePatch(%s) = %v; want ok %v", tt.name, err, tt.ok)
		}
	}
}

// TestPathEdits: an edit applies to a place that exists (a removal, the
// place; a set, its parent: an object, or an array long enough); the
// others are left out by Placed, so both databases do the same.
func TestPathEdits(t *testing.T) {
	doc := decoded(t, `{"stats":{"gold":777,"xp":5},"slots":["a","b"],"n":null}`)
	edits := PathEdits{
		{Path: []any{"stats", "gold"}, Value: json.Number("100")}, // set
		{Path: []any{"stats", "mana"}, Value: "full"},             // set, a new key of an object
		{Path: []any{"stats", "xp"}, Remove: true},                // removed
		{Path: []any{"slots", 1}, Value: "sword"},                 // an index
		{Path: []any{"slots", 2}, Value: "past the end"},          // no place
		{Path: []any{"slots", 0}, Remove: true},                   // would move the others: no
		{Path: []any{"bag", "key"}, Value: 1},                     // no parent
		{Path: []any{"ring"}, Remove: true},                       // not there
		{Path: []any{"n", "k"}, Value: 1},                         // a parent that is no object
	}
	placed := edits.Placed(doc)
	if len(placed) != 4 {
		t.Fatalf("Placed = %+v; want the first four", placed)
	}
	if got, want := jsonText(placed.Apply(doc)), `{"n":null,"slots":["a","sword"],"stats":{"gold":100,"mana":"full"}}`; got != want {
		t.Errorf("Apply = %s; want %s", got, want)
	}
	if got := jsonText(doc); got != `{"n":null,"slots":["a","b"],"stats":{"gold":777,"xp":5}}` {
		t.Errorf("Apply changed the document it was given: %s", got)
	}
}

func TestSQLitePath(t *testing.T) {
	for _, tt := range []struct {
		path []any
		want string
	}{
		{[]any{"a"}, `$."a"`},
		{[]any{"a.b", 3, `q"t`}, `$."a.b"[3]."q\"t"`},
		{[]any{"<&>"}, `$."<&>"`},
	} {
		if got := sqlitePath(tt.path); got != tt.want {
			t.Errorf("sqlitePath(%v) = %s; want %s", tt.path, got, tt.want)
		}
	}
}

// TestDocEditArgs: keys and values are arguments of the expressions,
// never their text, on both databases.
func TestDocEditArgs(t *testing.T) {
	key := `k'); DROP TABLE players; --`
	col := eventResource().Table.ByName["payload"]
	col.DBType = "json"
	for _, d := range []dialect.Name{dialect.PG, dialect.SQLite, dialect.MySQL} {
		pg := d == dialect.PG
		for _, ed := range []DocEdit{
			MergePatch{key: map[string]any{key: nil, "v": key}},
			PathEdits{{Path: []any{key, 2}, Value: key}, {Path: []any{key}, Remove: true}},
		} {
			for _, e := range ed.exprs(d, col, `"payload"`) {
				if strings.Contains(e.SQL, "DROP") || strings.Count(e.SQL, "?") != len(e.Args) {
					t.Errorf("pg %v: %s %v; want every key and value an argument", pg, e.SQL, e.Args)
				}
				if pg && !strings.HasPrefix(e.SQL, "CAST(") {
					t.Errorf("a json column's edit = %s; want it cast back to json", e.SQL)
				}
			}
		}
	}
	long := make(PathEdits, editsPerStatement+1)
	for i := range long {
		long[i] = PathEdit{Path: []any{"k"}, Value: i}
	}
	if n := len(long.exprs(dialect.PG, col, `"payload"`)); n != 2 {
		t.Errorf("%d edits in %d statements; want 2", len(long), n)
	}
}

// TestSameValue: what an update leaves unwritten is the same JSON value:
// a document however spaced or ordered, a number exactly, a time at the
// same instant and zone; anything else differs.
func TestSameValue(t *testing.T) {
	for _, tt := range []struct {
		x, y any
		same bool
	}{
		{json.RawMessage(`{"b": 1, "a": [1, 2]}`), map[string]any{"a": []any{json.Number("1"), json.Number("2")}, "b": json.Number("1")}, true},
		{json.RawMessage(`{"a":1}`), json.RawMessage(`{"a":2}`), false},
		{int64(9007199254740993), json.Number("9007199254740993"), true},
		{int64(9007199254740993), json.Number("9007199254740992"), false},
		{"x", "x", true},
		{"x", "y", false},
		{nil, nil, true},
		{nil, json.RawMessage(`null`), true},
		{int64(1), "1", false},
		{json.RawMessage(`"1"`), int64(1), false},
	} {
		if got := SameValue(tt.x, tt.y); got != tt.same {
			t.Errorf("SameValue(%#v, %#v) = %v; want %v", tt.x, tt.y, got, tt.same)
		}
	}
}

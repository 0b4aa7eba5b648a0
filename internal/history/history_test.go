package history

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/schema"
)

func TestWithoutRequestMeta(t *testing.T) {
	for _, payload := range []any{
		map[string]any{"ip": "192.0.2.1", "userAgent": "x", "changes": "c"},
		json.RawMessage(`{"ip":"192.0.2.1","userAgent":"x","changes":"c"}`),
	} {
		got := WithoutRequestMeta(payload)
		if want := map[string]any{"changes": "c"}; !reflect.DeepEqual(got, want) {
			t.Errorf("WithoutRequestMeta(%v) = %v; want %v", payload, got, want)
		}
	}
	for _, payload := range []any{nil, "text", json.RawMessage(`[1]`)} {
		if got := WithoutRequestMeta(payload); !reflect.DeepEqual(got, payload) {
			t.Errorf("WithoutRequestMeta(%v) = %v; want it as it was", payload, got)
		}
	}
}

func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		now    any
		logged string
		same   bool
	}{
		{int64(9007199254740993), `9007199254740993`, true}, // exact past float64
		{int64(9007199254740993), `9007199254740992`, false},
		{"a", `"a"`, true},
		{nil, `null`, true},
		{map[string]any{"b": 1, "a": 2}, `{"a":2,"b":1}`, true},
		{1, `"1"`, false},
		{1, `not json`, false},
	} {
		if got := SameValue(c.now, json.RawMessage(c.logged)); got != c.same {
			t.Errorf("SameValue(%#v, %s) = %v; want %v", c.now, c.logged, got, c.same)
		}
	}
}

func TestKind(t *testing.T) {
	raw := json.RawMessage(`1`)
	for _, c := range []struct {
		rec  auditRecord
		kind revertKind
		need authz.Op
	}{
		{auditRecord{Action: "update", Changes: map[string]columnChange{"a": {Before: raw, After: raw}}}, revertChanges, authz.OpUpdate},
		{auditRecord{Action: "revert", Changes: map[string]columnChange{"a": {Before: raw, After: raw}}}, revertChanges, authz.OpUpdate},
		{auditRecord{Action: "delete", Row: map[string]json.RawMessage{"a": raw}}, revertDelete, authz.OpCreate},
		{auditRecord{Action: "create", Row: map[string]json.RawMessage{"a": raw}}, revertCreate, authz.OpDelete},
	} {
		kind, need, err := c.rec.kind()
		if err != nil || kind != c.kind || need != c.need {
			t.Errorf("%s: kind %v, needs %q, %v; want %v, %q", c.rec.Action, kind, need, err, c.kind, c.need)
		}
	}
	_, _, err := (&auditRecord{ID: 7, Action: "ban"}).kind()
	var e *errbody.Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Code != "not_revertible" {
		t.Errorf("a ban entry: %v; want 400 not_revertible", err)
	}
	_, _, err = (&auditRecord{ID: 8, Action: "update", TooLarge: "the change of inventory, 410564 bytes"}).kind()
	if !errors.As(err, &e) || e.Code != "not_revertible" || !strings.Contains(e.Message, "too large to record what changed") || !strings.Contains(e.Message, "inventory, 410564 bytes") {
		t.Errorf("an entry too large to keep its changes: %v; want 400 not_revertible saying so", err)
	}
}

// TestDecodeChange: a column's change is read in each shape the log
// keeps: before and after, paths (keys and indexes), and the mark of
// one too large to keep; anything else is no change of ours.
func TestDecodeChange(t *testing.T) {
	tests := []struct {
		raw      string
		tooLarge int64
		ok       bool
		paths    []pathChange
	}{
		{`{"before": 1, "after": 2}`, 0, true, nil},
		{`{"paths": [{"path": ["stats", "gold"], "before": 1, "after": 2}, {"path": ["slots", 3], "after": "sword"}, {"path": ["x"], "before": null}]}`, 0, true, []pathChange{
			{Path: []any{"stats", "gold"}, Before: json.RawMessage(`1`), After: json.RawMessage(`2`)},
			{Path: []any{"slots", 3}, After: json.RawMessage(`"sword"`)},
			{Path: []any{"x"}, Before: json.RawMessage(`null`)},
		}},
		{`{"truncated": true, "bytes": 410564}`, 410564, true, nil},
		{`{"paths": [{"path": []}]}`, 0, false, nil},
		{`{"paths": [{"path": ["a", -1]}]}`, 0, false, nil},
		{`{"paths": [{"path": ["a", 1.5]}]}`, 0, false, nil},
		{`{"paths": [{"path": [true]}]}`, 0, false, nil},
		{`"[truncated: 12 bytes]"`, 0, false, nil},
	}
	for _, tt := range tests {
		ch, tooLarge, ok := decodeChange(json.RawMessage(tt.raw))
		if ok != tt.ok || tooLarge != tt.tooLarge || tt.paths != nil && !reflect.DeepEqual(ch.Paths, tt.paths) {
			t.Errorf("decodeChange(%s) = %+v, %d, %v; want paths %+v, %d, %v", tt.raw, ch, tooLarge, ok, tt.paths, tt.tooLarge, tt.ok)
		}
	}
}

// TestPathsChanged: a path conflicts when its value is not the one the
// entry left, when it is there though the entry took it out, and when
// its place is gone; the others do not.
func TestPathsChanged(t *testing.T) {
	doc := json.RawMessage(`{"stats": {"gold": 777, "xp": 5}, "slots": ["a", "sword"], "gone": 1}`)
	changes := []pathChange{
		{Path: []any{"stats", "gold"}, Before: json.RawMessage(`100`), After: json.RawMessage(`777`)}, // as left
		{Path: []any{"stats", "xp"}, Before: json.RawMessage(`1`), After: json.RawMessage(`4`)},       // changed since
		{Path: []any{"slots", 1}, After: json.RawMessage(`"sword"`)},                                  // as left
		{Path: []any{"gone"}, After: nil, Before: json.RawMessage(`1`)},                               // taken out, there again
		{Path: []any{"ring"}, Before: json.RawMessage(`1`)},                                           // taken out, still out
		{Path: []any{"bag", "key"}, Before: json.RawMessage(`1`)},                                     // its place is gone
		{Path: []any{"slots", 5}, Before: json.RawMessage(`1`), After: json.RawMessage(`2`)},          // past the array
	}
	got := pathsChanged(changes, doc)
	want := []string{"stats.xp", "gone", "bag.key", "slots[5]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pathsChanged = %q; want %q", got, want)
	}
	if got := pathsChanged(changes[:1], "not json"); len(got) != 1 {
		t.Errorf("pathsChanged over a value that is no document = %q; want the path", got)
	}
}

func TestDecodeLogged(t *testing.T) {
	c := &schema.Column{Name: "n", DataType: schema.Integer}
	v, err := decodeLogged(c, json.RawMessage(`9007199254740993`))
	if err != nil || v != int64(9007199254740993) {
		t.Errorf("decodeLogged = %#v, %v; want the exact int64", v, err)
	}
	_, err = decodeLogged(c, json.RawMessage(`"not a number"`))
	var e *errbody.Error
	if !errors.As(err, &e) || e.Status != http.StatusConflict || e.Code != "conflict" {
		t.Errorf("a logged value that no longer fits: %v; want 409 conflict", err)
	}
}

func TestChangedSince(t *testing.T) {
	rec := &auditRecord{ID: 3, Action: "update"}
	if err := changedSince(rec, nil); err != nil {
		t.Errorf("no column changed: %v", err)
	}
	err := changedSince(rec, map[string]string{"b": "B changed since", "a": "A changed since"})
	var e *errbody.Error
	if !errors.As(err, &e) || e.Status != http.StatusConflict || e.Message != "the row changed since entry 3 (a, b): an admin may force the revert" || len(e.Fields) != 2 {
		t.Errorf("changedSince = %v; want 409 naming a and b", err)
	}
}

package history

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
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
		{auditRecord{Action: "update", Changes: map[string]struct{ Before, After json.RawMessage }{"a": {raw, raw}}}, revertChanges, authz.OpUpdate},
		{auditRecord{Action: "revert", Changes: map[string]struct{ Before, After json.RawMessage }{"a": {raw, raw}}}, revertChanges, authz.OpUpdate},
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

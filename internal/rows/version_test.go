package rows

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/schema"
)

// eventResource is a table like the analytics events: five columns, a
// JSON payload among them, and a hidden one.
func eventResource() *Resource {
	t := &schema.Table{Name: "events", ByName: map[string]*schema.Column{}}
	for _, c := range []*schema.Column{
		{Name: "id", DataType: schema.Integer, Primary: true},
		{Name: "user_id", DataType: schema.String},
		{Name: "name", DataType: schema.String},
		{Name: "payload", DataType: schema.JSON},
		{Name: "created_at", DataType: schema.Datetime},
		{Name: "secret", DataType: schema.String},
	} {
		t.Columns = append(t.Columns, c)
		t.ByName[c.Name] = c
	}
	hidden := map[string]bool{"secret": true}
	return &Resource{Key: "events", Table: t, Hidden: hidden, stored: hidden}
}

func eventRow() map[string]any {
	return map[string]any{
		"id": int64(48213), "user_id": "0190c5a2-7d2e-7b3c-9a51-2f4e8d6c1b0a", "name": "level_up",
		"payload": json.RawMessage(`{"level": 5, "xp": 1234}`), "created_at": time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC),
	}
}

// TestETag: one row, one ETag, whoever's key... no: the same key and
// row give the same strong ETag; a change of any column read changes
// it, a hidden column's value and a stored document's spacing do not,
// and another key gives another ETag. With a version column, only that
// column counts.
func TestETag(t *testing.T) {
	v := NewVersions([]byte("0123456789abcdef0123456789abcdef"))
	res := eventResource()
	base := v.ETag(res, eventRow())
	if len(base) < 20 || base[0] != '"' || base[len(base)-1] != '"' {
		t.Fatalf("ETag = %q; want a strong quoted tag", base)
	}
	if got := v.ETag(res, eventRow()); got != base {
		t.Fatalf("ETag of the same row = %q; want %q", got, base)
	}
	changed := map[string]func(map[string]any){
		"name":       func(r map[string]any) { r["name"] = "level_down" },
		"payload":    func(r map[string]any) { r["payload"] = json.RawMessage(`{"level":5,"xp":1235}`) },
		"created_at": func(r map[string]any) { r["created_at"] = time.Date(2025, 3, 4, 5, 6, 8, 0, time.UTC) },
		"null":       func(r map[string]any) { r["user_id"] = nil },
	}
	for name, change := range changed {
		r := eventRow()
		change(r)
		if v.ETag(res, r) == base {
			t.Errorf("a change of %s left the ETag as it was", name)
		}
	}
	same := map[string]func(map[string]any){
		"hidden":  func(r map[string]any) { r["secret"] = "x" },
		"spacing": func(r map[string]any) { r["payload"] = json.RawMessage(`{"level":5,"xp":1234}`) },
		"notes":   func(r map[string]any) { r["_labels"] = map[string]string{"user_id": "Ann"} },
	}
	for name, change := range same {
		r := eventRow()
		change(r)
		if v.ETag(res, r) != base {
			t.Errorf("%s changed the ETag", name)
		}
	}
	if other := NewVersions([]byte("another secret, just as long....")).ETag(res, eventRow()); other == base {
		t.Error("another key gave the same ETag: the digest is not keyed")
	}
	res.version = res.Table.ByName["created_at"]
	r := eventRow()
	r["name"] = "other"
	if a, b := v.ETag(res, eventRow()), v.ETag(res, r); a != b || a == base {
		t.Errorf("with a version column: %s, %s; want one ETag whatever the other columns, not the digest's", a, b)
	}
}

func TestParseIfMatch(t *testing.T) {
	tests := []struct {
		header []string
		ok     bool
		match  string // an ETag it matches, "" for none to try
		not    string // one it does not
	}{
		{nil, true, `"a"`, ""},
		{[]string{`"abc"`}, true, `"abc"`, `"abd"`},
		{[]string{`"a", "b"`}, true, `"b"`, `"c"`},
		{[]string{`"a"`, `"b"`}, true, `"b"`, `"c"`},
		{[]string{`*`}, true, `"anything"`, ""},
		{[]string{` "a" ,, `}, true, `"a"`, `"b"`},
		{[]string{`abc`}, false, "", ""},
		{[]string{`W/"abc"`}, false, "", ""},
		{[]string{`"a b"`}, false, "", ""},
		{[]string{`"a"b"`}, false, "", ""},
		{[]string{`*, "a"`}, false, "", ""},
		{[]string{``}, false, "", ""},
		{[]string{`"`}, false, "", ""},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, v := range tt.header {
			h.Add("If-Match", v)
		}
		m, err := ParseIfMatch(h)
		var e *errbody.Error
		switch {
		case tt.ok && err != nil:
			t.Errorf("ParseIfMatch(%q) = %v; want it read", tt.header, err)
		case !tt.ok && (!errors.As(err, &e) || e.Status != 400 || e.Code != "invalid_header"):
			t.Errorf("ParseIfMatch(%q) = %v, %v; want 400 invalid_header", tt.header, m, err)
		case tt.ok && tt.header == nil && m != nil:
			t.Errorf("no If-Match gave %v; want nil", m)
		}
		if tt.match != "" && !m.Matches(tt.match) {
			t.Errorf("ParseIfMatch(%q).Matches(%s) = false", tt.header, tt.match)
		}
		if tt.not != "" && m.Matches(tt.not) {
			t.Errorf("ParseIfMatch(%q).Matches(%s) = true", tt.header, tt.not)
		}
	}
}

func TestNextVersion(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 678_901_234, time.UTC)
	intCol := &schema.Column{Name: "v", DataType: schema.Integer}
	timeCol := &schema.Column{Name: "t", DataType: schema.Datetime}
	unixCol := &schema.Column{Name: "u", DataType: schema.Integer, Unix: schema.UnixSeconds}
	tests := []struct {
		c    *schema.Column
		old  any
		want any
	}{
		{intCol, int64(7), int64(8)},
		{intCol, nil, int64(1)},
		{timeCol, nil, now.Truncate(time.Microsecond)},
		{timeCol, now.Add(-time.Hour), now.Truncate(time.Microsecond)},
		{timeCol, now.Add(time.Hour), now.Add(time.Hour).Add(time.Microsecond).Truncate(time.Microsecond)}, // the stored one is ahead: past it
		{timeCol, "infinity", now.Truncate(time.Microsecond)},
		{unixCol, now.Add(-time.Hour), now.Unix()},
		{unixCol, now, now.Unix() + 1},
	}
	for _, tt := range tests {
		if got := nextVersion(tt.c, tt.old, now); got != tt.want {
			t.Errorf("nextVersion(%s, %v) = %v; want %v", tt.c.Name, tt.old, got, tt.want)
		}
	}
}

// BenchmarkETag is what a read by id adds: the digest of a row like the
// analytics events'.
func BenchmarkETag(b *testing.B) {
	v := NewVersions([]byte("0123456789abcdef0123456789abcdef"))
	res, row := eventResource(), eventRow()
	b.ReportAllocs()
	for b.Loop() {
		v.ETag(res, row)
	}
}

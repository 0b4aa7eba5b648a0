package admintest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestListRowsAreReads: each row of a list page, which PostgreSQL renders
// (the events' columns all have a plain JSON form), is byte for byte the
// answer of a read of the same row by id, which the Go path reads and
// encodes: labels, escapes, JSON documents and times alike; and a full
// page's cursor leads on to the next rows. The same holds on the other
// databases, where both are Go's.
func TestListRowsAreReads(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c, adminID := e.bootstrap()
		texts := []string{"plain", `quote " and \ back`, "tags <b> & amp", "line\nbreak\ttab\u2028", "ünï©ødé 🎮", ""}
		base := time.Date(2026, 12, 3, 8, 30, 0, 0, time.UTC)
		for i := range 12 {
			user := any(adminID) // labelled by the admin's email
			switch i % 3 {
			case 1:
				user = fmt.Sprintf("u%d", i) // no such player: no label
			case 2:
				user = nil
			}
			c.do("POST", "/admin-api/analyticsEvents", map[string]any{
				"user_id": user, "name": "ev " + texts[i%len(texts)],
				"payload":    map[string]any{"tag": texts[(i+1)%len(texts)], "n": i, "deep": map[string]any{"list": []any{1, "<&>", nil, true}}},
				"created_at": base.Add(time.Duration(i) * 1234567 * time.Microsecond).Format(time.RFC3339Nano),
			}).want(t, 201)
		}
		first := c.do("GET", "/admin-api/analyticsEvents?_start=0&_end=8&_count=none", nil).want(t, 200)
		rest := c.do("GET", "/admin-api/analyticsEvents?_limit=8&_cursor="+first.Header.Get("X-Next-Cursor"), nil).want(t, 200)
		var page, more []json.RawMessage
		if err := json.Unmarshal(first.raw, &page); err != nil || len(page) != 8 {
			t.Fatalf("first page = %s (%v); want 8 rows", first.raw, err)
		}
		if err := json.Unmarshal(rest.raw, &more); err != nil || len(more) != 4 {
			t.Fatalf("the page after its cursor = %s (%v); want the 4 other rows", rest.raw, err)
		}
		for _, row := range append(page, more...) {
			var r struct{ ID json.Number }
			if err := json.Unmarshal(row, &r); err != nil {
				t.Fatal(err)
			}
			read := c.do("GET", "/admin-api/analyticsEvents/"+r.ID.String(), nil).want(t, 200)
			if got := bytes.TrimSuffix(read.raw, []byte("\n")); !bytes.Equal(row, got) {
				t.Errorf("row %s of the list:\n%s\nits read:\n%s", r.ID, row, got)
			}
		}
	})
}

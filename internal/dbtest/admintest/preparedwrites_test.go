package admintest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

// writeQueries counts the write statements Bun's hooks see: those that
// ran plainly, with their values inline. A prepared one bypasses them.
type writeQueries struct {
	mu sync.Mutex
	n  map[string]int
}

var writeKinds = []string{`INSERT INTO "gadgets"`, `UPDATE "gadgets"`, `INSERT INTO "game_admin_audit"`}

func (h *writeQueries) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	h.mu.Lock()
	defer h.mu.Unlock()
	q := strings.ReplaceAll(ev.Query, "`", `"`) // MySQL quotes names with backticks
	for _, k := range writeKinds {
		if strings.HasPrefix(q, k) {
			h.n[k]++
		}
	}
	if strings.HasPrefix(q, "SELECT") && strings.Contains(q, `FROM "gadgets"`) && strings.Contains(q, "FOR UPDATE") {
		h.n["lock"]++
	}
	return ctx
}

func (*writeQueries) AfterQuery(context.Context, *bun.QueryEvent) {}

// prepWait bounds a test's wait for a statement to run prepared: a text
// is prepared in the background after its second run (stmtcache's
// warmLater), which a busy machine may get to only rounds later. The
// wait is over after 12 rounds once 30 s have passed, which only a text
// never prepared spends.
type prepWait struct{ start time.Time }

func newPrepWait() prepWait { return prepWait{time.Now()} }

// over reports whether round i (from 0) was the last.
func (p prepWait) over(i int) bool { return i >= 11 && time.Since(p.start) > 30*time.Second }

func (h *writeQueries) take() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.n
	h.n = map[string]int{}
	return n
}

// TestWritesArePrepared: a create's and an update's statements (the
// write, the update's locked read of the row, the audit entry) run
// prepared once their text has been seen, the values bound, so Bun's
// hooks (which see what runs plainly) stop seeing them, and the rows and
// audit entries are what the inline writes made; a value the database
// refuses (a duplicate name) does not stop the preparing. A prepared statement
// the server lost (DEALLOCATE ALL, as a pooler that does not keep them
// loses it) fails its transaction, which runs once more, plainly: the
// PATCH answers 200 and is audited once.
func TestWritesArePrepared(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		pg := db.Dialect().Name() == dialect.PG
		if pg {
			db.SetMaxOpenConns(1) // DEALLOCATE ALL reaches the panel's statements
		}
		hook := &writeQueries{n: map[string]int{}}
		e := gadgetEnv(t, db.WithQueryHook(hook), Options{}, true)
		c, _ := e.bootstrap()
		hook.take()

		// Until every statement of a PATCH runs prepared: the first run
		// plain, the text warmed in the background after the second.
		var plain map[string]int
		for i, p := 0, newPrepWait(); ; i++ {
			qty := float64(1000 + i)
			if got := c.do("PATCH", "/admin-api/gadgets/1", map[string]any{"qty": qty}).want(t, 200).body["qty"]; got != qty {
				t.Fatalf("PATCH %d answered qty %v; want %v", i, got, qty)
			}
			if plain = hook.take(); i >= 2 && plain[`UPDATE "gadgets"`]+plain["lock"]+plain[`INSERT INTO "game_admin_audit"`] == 0 {
				break
			}
			if p.over(i) {
				t.Fatalf("after %d PATCHes the last still ran plainly: %v", i+1, plain)
			}
		}
		ups := e.auditRows("update")
		last := ups[len(ups)-1]
		if q, _ := last.Payload["changes"].(map[string]any)["qty"].(map[string]any); q["after"] != float64(1000+len(ups)-1) || last.TargetID != "1" {
			t.Fatalf("the prepared PATCH's audit entry = %+v; want its change of qty", last)
		}
		var qty int
		if err := db.NewRaw("SELECT qty FROM gadgets WHERE id = 1").Scan(ctx, &qty); err != nil || qty != 1000+len(ups)-1 {
			t.Fatalf("qty stored = %d, %v; want the last PATCH's", qty, err)
		}

		for i, p := 0, newPrepWait(); ; i++ {
			name := fmt.Sprintf("made %d", i)
			if got := c.do("POST", "/admin-api/gadgets", map[string]any{"name": name, "qty": i}).want(t, 201).body["name"]; got != name {
				t.Fatalf("POST %d answered name %v", i, got)
			}
			if plain = hook.take(); i >= 2 && plain[`INSERT INTO "gadgets"`]+plain[`INSERT INTO "game_admin_audit"`] == 0 {
				break
			}
			if p.over(i) {
				t.Fatalf("after %d POSTs the last still ran plainly: %v", i+1, plain)
			}
		}
		creates := e.auditRows("create")
		if row, _ := creates[len(creates)-1].Payload["row"].(map[string]any); row["name"] != fmt.Sprintf("made %d", len(creates)-1) {
			t.Fatalf("the prepared POST's audit entry = %+v", creates[len(creates)-1])
		}
		// A refused value is the statement's own failure, as the plain
		// text's would be: answered as it is (409), and no reason to stop
		// preparing, however often it comes.
		dup := fmt.Sprintf("made %d", len(creates)-1)
		for range 8 {
			c.do("POST", "/admin-api/gadgets", map[string]any{"name": dup, "qty": 1}).want(t, 409)
		}
		hook.take()
		c.do("POST", "/admin-api/gadgets", map[string]any{"name": "after the refusals", "qty": 2}).want(t, 201)
		if got := hook.take(); got[`INSERT INTO "gadgets"`] != 0 || strings.Contains(e.logs.String(), "keep failing") {
			t.Fatalf("after 8 duplicate names the create ran plainly (%v) or the log gave up on preparing:\n%s", got, e.logs)
		}
		if !pg {
			return
		}

		if _, err := db.ExecContext(ctx, "DEALLOCATE ALL"); err != nil {
			t.Fatal(err)
		}
		before := len(e.auditRows("update"))
		if r := c.do("PATCH", "/admin-api/gadgets/1", map[string]any{"qty": 7}); r.StatusCode != 200 {
			t.Fatalf("PATCH after DEALLOCATE ALL = %d; log:\n%s", r.StatusCode, e.logs)
		}
		if n := len(e.auditRows("update")); n != before+1 {
			t.Fatalf("a PATCH whose prepared statement was lost made %d audit entries; want 1", n-before)
		}
		if got := hook.take(); got[`UPDATE "gadgets"`] != 1 {
			t.Fatalf("after the lost statement, the UPDATE ran plainly %d times; want once, in the transaction run again", got[`UPDATE "gadgets"`])
		}
	})
}

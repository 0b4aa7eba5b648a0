package admintest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

func TestAuditAPI(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		au := e.admin.Audit()
		if err := au.Record(ctx, AuditEntry{Resource: "x"}); err == nil {
			t.Fatal("Record without Action = nil; want an error")
		}
		old := time.Now().Add(-48 * time.Hour).UTC()
		if err := au.Record(ctx, AuditEntry{OperatorID: "op", Action: "custom.thing", Resource: "guilds", TargetID: "7", CreatedAt: old, Payload: map[string]any{"n": 1}}); err != nil {
			t.Fatal(err)
		}
		got := e.auditRows("custom.thing")
		if len(got) != 1 || got[0].OperatorID != "op" || got[0].TargetID != "7" || got[0].Payload["n"] != float64(1) || got[0].CreatedAt.Sub(old).Abs() > time.Second {
			t.Fatalf("recorded = %+v", got)
		}

		// The typed text "\u0000" is kept, a NUL character becomes that
		// text (jsonb holds no NUL), on both databases.
		if err := au.Record(ctx, AuditEntry{Action: "custom.nul", Resource: "guilds", Payload: map[string]any{"typed": `a \u0000 b`, "nul": "a\x00b"}}); err != nil {
			t.Fatal(err)
		}
		if got := e.auditRows("custom.nul"); len(got) != 1 || got[0].Payload["typed"] != `a \u0000 b` || got[0].Payload["nul"] != `a\u0000b` {
			t.Fatalf("recorded = %+v; want the typed text kept and the NUL as its text", got)
		}

		before := &User{ID: "u1", Email: "a@example.com", DisplayName: "A", PasswordHash: "secret-hash-1", TokenVersion: 1, CreatedAt: old}
		after := *before
		after.DisplayName, after.PasswordHash, after.TokenVersion = "B", "secret-hash-2", 2
		if err := au.RecordUpdate(ctx, UpdateRecord{OperatorID: "op", Resource: "users", TargetID: "u1", Before: before, After: &after}); err != nil {
			t.Fatal(err)
		}
		if err := au.RecordUpdate(ctx, UpdateRecord{Resource: "users", TargetID: "u1", Before: before, After: before}); err != nil {
			t.Fatal(err)
		}
		if err := au.RecordUpdate(ctx, UpdateRecord{Resource: "configs", TargetID: "k", Before: map[string]any{"a": 1, "b": "x"}, After: map[string]any{"a": 1.0, "b": "y"}}); err != nil {
			t.Fatal(err)
		}
		ups := e.auditRows("update")
		if len(ups) != 2 {
			t.Fatalf("update rows = %d; want 2 (an unchanged update writes nothing)", len(ups))
		}
		changes := ups[0].Payload["changes"].(map[string]any)
		if len(changes) != 2 || changes["display_name"] == nil || changes["token_version"] == nil {
			t.Fatalf("changes = %v; want display_name and token_version only (no password_hash)", changes)
		}
		dn := changes["display_name"].(map[string]any)
		if dn["before"] != "A" || dn["after"] != "B" {
			t.Fatalf("display_name change = %v", dn)
		}
		if c := ups[1].Payload["changes"].(map[string]any); len(c) != 1 || c["b"] == nil {
			t.Fatalf("map changes = %v; want only b (1 and 1.0 are equal)", c)
		}

		n, err := au.Prune(ctx, time.Now().Add(-24*time.Hour))
		if err != nil || n != 1 {
			t.Fatalf("Prune = %d, %v; want 1", n, err)
		}
		if len(e.auditRows("custom.thing")) != 0 || len(e.auditRows("update")) != 2 {
			t.Fatal("Prune removed the wrong rows")
		}
	})
}

// TestAuditFailureNeverBlocks: with the audit table gone, sign-in still
// works and the failure is logged.
func TestAuditFailureNeverBlocks(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		e.user("p@example.com", "player password")
		if _, err := db.ExecContext(context.Background(), "DROP TABLE game_admin_audit"); err != nil {
			t.Fatal(err)
		}
		c := e.login("p@example.com", "player password")
		c.do("POST", "/admin-api/auth/logout", nil).want(t, 200)
		if !contains(e.logs.String(), "audit write failed") {
			t.Fatalf("no audit failure logged:\n%s", e.logs)
		}
	})
}

// logLine returns the one log line carrying the request id, failing the
// test unless there is exactly one.
func logLine(t *testing.T, e *env, requestID string) string {
	t.Helper()
	var found []string
	for _, l := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(l, "requestId="+requestID) {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("log lines with requestId %s = %d; want 1:\n%s", requestID, len(found), e.logs.String())
	}
	return found[0]
}

// want5xx checks a 5xx answer: the error body with a requestId that the
// X-Request-Id header repeats, and one ERROR log line with that id holding
// the cause (wantCause).
func want5xx(t *testing.T, e *env, r *resp, status int, code, wantCause string) {
	t.Helper()
	r.want(t, status, code)
	id, _ := r.body["requestId"].(string)
	if id == "" || r.Header.Get("X-Request-Id") != id {
		t.Fatalf("%s %s: requestId %q, X-Request-Id %q; want the same id in both", r.Request.Method, r.Request.URL.Path, id, r.Header.Get("X-Request-Id"))
	}
	line := logLine(t, e, id)
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, wantCause) {
		t.Fatalf("log line of %s %s = %s; want an ERROR with %q", r.Request.Method, r.Request.URL.Path, line, wantCause)
	}
}

// auditEnv is a panel with gadgets, an admin client and a plain user.
func auditEnv(t *testing.T, db *bun.DB) (*env, *client) {
	t.Helper()
	createTables(t, db, (*testGadget)(nil))
	e := newEnv(t, db, Options{
		Tables: tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}),
		Resources: map[string]*Resource{"gadgets": DefineResource((*testGadget)(nil), ResourceConfig{Actions: []Action{
			{Name: "noop", Handler: func(context.Context, map[string]any, ActionContext) (any, error) { return "done", nil }},
		}})},
	})
	admin, _ := e.bootstrap()
	return e, admin
}

func (e *env) gadgetQty(name string) (int64, bool) {
	e.t.Helper()
	var qty int64
	err := e.db.NewSelect().Table("gadgets").Column("qty").Where("name = ?", name).Scan(context.Background(), &qty)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return qty, true
}

// A change whose audit entry cannot be written does not happen: the
// answer is 500, logged with the cause, and the row is as it was.
func TestAuditFailureRollsBack(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, admin := auditEnv(t, db)
		ctx := context.Background()
		g := admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "kept", "qty": 1}).want(t, 201)
		gid := fmt.Sprint(g.body["id"])
		uid := e.user("player@example.com", "player password")
		tv := func() int64 {
			_, _, tv := e.account(uid)
			return tv
		}
		tv0 := tv()
		before := len(e.auditRows("create")) + len(e.auditRows("update")) + len(e.auditRows("delete"))

		if _, err := db.ExecContext(ctx, "ALTER TABLE game_admin_audit RENAME TO audit_away"); err != nil {
			t.Fatal(err)
		}
		const cause = "game_admin_audit"
		want5xx(t, e, admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "lost"}), 500, "internal", cause)
		if _, ok := e.gadgetQty("lost"); ok {
			t.Fatal("a create whose audit entry failed was committed")
		}
		want5xx(t, e, admin.do("PATCH", "/admin-api/gadgets/"+gid, map[string]any{"qty": 99}), 500, "internal", cause)
		if q, _ := e.gadgetQty("kept"); q != 1 {
			t.Fatalf("qty = %d after a failed audit; want 1", q)
		}
		want5xx(t, e, admin.do("DELETE", "/admin-api/gadgets/"+gid, nil), 500, "internal", cause)
		if _, ok := e.gadgetQty("kept"); !ok {
			t.Fatal("a delete whose audit entry failed was committed")
		}
		want5xx(t, e, admin.do("POST", "/admin-api/users/"+uid+"/ban", map[string]any{"reason": "x"}), 500, "internal", cause)
		if b, err := e.admin.Auth().Banned(ctx, uid); err != nil || b != nil {
			t.Fatalf("Banned = %v, %v after a failed audit; want not banned", b, err)
		}
		want5xx(t, e, admin.do("POST", "/admin-api/users/"+uid+"/revoke-sessions", nil), 500, "internal", cause)
		if tv() != tv0 {
			t.Fatal("revoke-sessions was committed without its audit entry")
		}
		want5xx(t, e, admin.do("POST", "/admin-api/gadgets/_action/noop", nil), 500, "internal", cause)

		// The Go API's role and moderation changes too.
		if err := e.admin.Moderation().SetRole(ctx, uid, RoleMod); err == nil {
			t.Fatal("SetRole succeeded without its audit entry")
		}
		if err := e.admin.Moderation().AssignMod(ctx, uid, "gadgets"); err == nil {
			t.Fatal("AssignMod succeeded without its audit entry")
		}
		if op, err := e.admin.Moderation().Role(ctx, uid); err != nil || op.Role != RoleUser || len(op.Scopes) != 0 {
			t.Fatalf("role = %+v, %v after failed audits; want a plain user", op, err)
		}
		if err := e.admin.Auth().Ban(ctx, uid, BanInfo{Reason: "x"}); err == nil {
			t.Fatal("Auth.Ban succeeded without its audit entry")
		}
		if b := must(e.admin.Auth().Banned(ctx, uid)); b != nil {
			t.Fatal("Auth.Ban was committed without its audit entry")
		}

		// Back to normal: the same calls succeed, each with its entry.
		if _, err := db.ExecContext(ctx, "ALTER TABLE audit_away RENAME TO game_admin_audit"); err != nil {
			t.Fatal(err)
		}
		admin.do("PATCH", "/admin-api/gadgets/"+gid, map[string]any{"qty": 99}).want(t, 200)
		if n := len(e.auditRows("create")) + len(e.auditRows("update")) + len(e.auditRows("delete")); n != before+1 {
			t.Fatalf("audit rows = %d; want %d", n, before+1)
		}
		if err := e.admin.Moderation().AssignMod(ctx, uid, "gadgets"); err != nil {
			t.Fatal(err)
		}
		rows := e.auditRows("role.assign_mod")
		if len(rows) != 1 || rows[0].TargetID != uid || rows[0].Resource != "roles" || rows[0].Payload["scope"] != "gadgets" {
			t.Fatalf("role.assign_mod entries = %+v", rows)
		}
	})
}

// Every committed change has exactly one audit entry, and every update's
// "before" is the row it replaced, with 50 writers at once.
func TestAuditMatchesMutationsConcurrently(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, admin := auditEnv(t, db)
		shared := admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "shared"}).want(t, 201)
		sharedID := fmt.Sprint(shared.body["id"])
		const writers = 50
		users := make([]string, writers)
		for i := range users {
			users[i] = e.user(fmt.Sprintf("p%d@example.com", i), "player password")
		}
		var creates, updates, deletes, bans, failures atomic.Int64
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				ok := func(r *resp, status int, n *atomic.Int64) bool {
					if r.StatusCode != status {
						failures.Add(1)
						t.Errorf("%s %s = %d %s", r.Request.Method, r.Request.URL.Path, r.StatusCode, r.raw)
						return false
					}
					n.Add(1)
					return true
				}
				r := admin.do("POST", "/admin-api/gadgets", map[string]any{"name": fmt.Sprintf("w%d", i)})
				ok(admin.do("PATCH", "/admin-api/gadgets/"+sharedID, map[string]any{"qty": 1000 + i}), 200, &updates)
				if ok(r, 201, &creates) {
					ok(admin.do("DELETE", "/admin-api/gadgets/"+fmt.Sprint(r.body["id"]), nil), 200, &deletes)
				}
				ok(admin.do("POST", "/admin-api/users/"+users[i]+"/ban", map[string]any{"reason": "r"}), 200, &bans)
			})
		}
		wg.Wait()
		if failures.Load() > 0 {
			t.FailNow()
		}
		gadgetRows := func(action string) []AuditEntry {
			var out []AuditEntry
			for _, r := range e.auditRows(action) {
				if r.Resource == "gadgets" {
					out = append(out, r)
				}
			}
			return out
		}
		for _, c := range []struct {
			action string
			n      int64
			rows   int
		}{
			{"create", creates.Load() + 1, len(gadgetRows("create"))}, // + the shared row
			{"update", updates.Load(), len(gadgetRows("update"))},
			{"delete", deletes.Load(), len(gadgetRows("delete"))},
			{"user.ban", bans.Load(), len(e.auditRows("user.ban"))},
		} {
			if int64(c.rows) != c.n {
				t.Errorf("%s: %d committed, %d audit entries", c.action, c.n, c.rows)
			}
		}
		if creates.Load() != writers || updates.Load() != writers || deletes.Load() != writers || bans.Load() != writers {
			t.Fatalf("mutations = %d creates, %d updates, %d deletes, %d bans; want %d each", creates.Load(), updates.Load(), deletes.Load(), bans.Load(), writers)
		}
		// The updates of the shared row form one chain, in entry order:
		// each "before" is the previous "after", from the default 7 to the
		// final value.
		prev := "7"
		for _, r := range gadgetRows("update") {
			ch := r.Payload["changes"].(map[string]any)["qty"].(map[string]any)
			if fmt.Sprint(ch["before"]) != prev {
				t.Fatalf("update entry %d: before %v; want %s (the value it replaced)", r.ID, ch["before"], prev)
			}
			prev = fmt.Sprint(ch["after"])
		}
		if q, _ := e.gadgetQty("shared"); fmt.Sprint(q) != prev {
			t.Fatalf("shared qty = %d; the last entry says %s", q, prev)
		}
	})
}

// The PostgreSQL backends of the panel's pool are terminated again and
// again under 20 writers: during the fault the panel answers 5xx with the
// JSON error body; afterwards it works without a restart; and no committed
// change lacks its audit entry.
func TestAuditSurvivesTerminatedBackends(t *testing.T) {
	t.Parallel()
	app := fmt.Sprintf("gameadmin_fault_%d", time.Now().UnixNano())
	db := testdb.PGNamed(t, app)
	e, admin := auditEnv(t, db)
	admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "shared"}).want(t, 201) // id 1
	ctx := context.Background()
	control := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(testdb.PGDSN()), pgdriver.WithApplicationName(app+"_control"))), pgdialect.New())
	defer control.Close()

	const writers = 20
	faultOn := make(chan struct{})
	var stop atomic.Bool
	var killed, failures atomic.Int64
	var killerWG sync.WaitGroup
	killerWG.Go(func() {
		close(faultOn)
		// Three seconds of the fault, and on a machine too loaded for it
		// to bite in those (a backend terminated under a request) until
		// it has, for at most a minute.
		began := time.Now()
		bitten := func() bool { return killed.Load() > 0 && failures.Load() > 0 }
		for time.Since(began) < 3*time.Second || !bitten() && time.Since(began) < time.Minute {
			var n int64
			err := control.NewRaw("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()", app).Scan(ctx, &n)
			if err != nil {
				t.Errorf("terminate: %v", err)
				return
			}
			killed.Add(n)
			time.Sleep(50 * time.Millisecond)
		}
		stop.Store(true)
	})
	<-faultOn

	type outcome struct {
		status int
		body   map[string]any
		ct     string
	}
	var mu sync.Mutex
	var outcomes []outcome
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for j := 0; !stop.Load(); j++ {
				var r *resp
				if j%2 == 0 {
					r = admin.do("POST", "/admin-api/gadgets", map[string]any{"name": fmt.Sprintf("w%d-%d", w, j), "qty": j})
				} else {
					r = admin.do("PATCH", "/admin-api/gadgets/1", map[string]any{"qty": w*100000 + j})
				}
				if r.StatusCode >= 500 {
					failures.Add(1)
				}
				mu.Lock()
				outcomes = append(outcomes, outcome{r.StatusCode, r.body, r.Header.Get("Content-Type")})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	killerWG.Wait()

	var ok2xx, failed int
	for _, o := range outcomes {
		switch {
		case o.status == 200 || o.status == 201:
			ok2xx++
		case o.status >= 500:
			failed++
			if o.ct != "application/json" || o.body["code"] == nil || o.body["status"] != float64(o.status) || o.body["requestId"] == nil {
				t.Fatalf("a %d during the fault came without the error body: %v (%s)", o.status, o.body, o.ct)
			}
		default:
			t.Fatalf("answer %d %v during the fault; want 2xx or 5xx", o.status, o.body)
		}
	}
	t.Logf("%d requests: %d succeeded, %d answered 5xx; %d backends terminated", len(outcomes), ok2xx, failed, killed.Load())
	if killed.Load() == 0 || failed == 0 {
		t.Fatalf("the fault did not bite: %d backends terminated, %d failures", killed.Load(), failed)
	}

	// Recovered without a restart: after at most a few stale
	// connections, every request succeeds.
	deadline := time.Now().Add(30 * time.Second)
	for admin.do("PATCH", "/admin-api/gadgets/1", map[string]any{"qty": 1}).StatusCode != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the panel did not recover from the terminated backends")
		}
	}
	for i := range 20 {
		admin.do("POST", "/admin-api/gadgets", map[string]any{"name": fmt.Sprintf("after-%d", i)}).want(t, 201)
	}

	// Every row has its create entry, and no entry lacks its row.
	var ids []string
	if err := db.NewSelect().Table("gadgets").ColumnExpr("CAST(id AS TEXT)").Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	entries := map[string]bool{}
	for _, r := range e.auditRows("create") {
		if r.Resource == "gadgets" {
			entries[r.TargetID] = true
		}
	}
	for _, id := range ids {
		if !entries[id] {
			t.Errorf("gadget %s was committed without its create entry", id)
		}
	}
	if len(entries) != len(ids) {
		t.Errorf("%d create entries for %d gadgets", len(entries), len(ids))
	}
	// The last committed update of the shared row is the last entry's
	// "after".
	ups := e.auditRows("update")
	last := ups[len(ups)-1].Payload["changes"].(map[string]any)["qty"].(map[string]any)["after"]
	var qty int64
	if err := db.NewSelect().Table("gadgets").Column("qty").Where("id = 1").Scan(ctx, &qty); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(last) != fmt.Sprint(qty) {
		t.Fatalf("gadget 1 qty = %d; its last update entry says %v", qty, last)
	}
}

// TestActionAuditBounded: a custom action open to plain users cannot grow
// the audit log by its body's size (50 × 1 MB added 50 MiB), and an
// operator's actions are rate limited.
func TestActionAuditBounded(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var calls atomic.Int64
		e := actionEnv(t, db, Options{PlayersCanRead: true, RateLimit: RateLimitOptions{Actions: NewTokenBucket(3, 1.0/3600)}}, &calls)
		cr := e.crew("guilds")
		body := map[string]any{"blob": strings.Repeat("x", 100<<10), "note": "hi"}
		for range 3 {
			cr.user.do("POST", "/admin-api/guilds/_action/report", body).want(t, 200)
		}
		cr.user.do("POST", "/admin-api/guilds/_action/report", body).want(t, 429, "rate_limited")
		cr.admin.do("POST", "/admin-api/guilds/_action/report", map[string]any{}).want(t, 200) // per operator
		if n := calls.Load(); n != 4 {
			t.Fatalf("handler ran %d times; want 4", n)
		}
		rows := e.auditRows("custom")
		if len(rows) != 4 {
			t.Fatalf("%d custom audit rows; want 4", len(rows))
		}
		for _, row := range rows[:3] {
			b, _ := json.Marshal(row.Payload)
			if len(b) > defaultAuditMaxPayload || row.Payload["name"] != "report" || row.Payload["_truncated"] == nil {
				t.Fatalf("audit row of a 100 KB action = %d bytes, name %v, marker %v; want ≤ %d, report, a marker",
					len(b), row.Payload["name"], row.Payload["_truncated"], defaultAuditMaxPayload)
			}
		}
	})
}

// TestAuditTargetsLabelled: the audit log names each target by its row's
// label (a player's email, a gadget's name), whatever resource it is of,
// and only for resources the reader may read.
func TestAuditTargetsLabelled(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, admin := auditEnv(t, db)
		g := admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "Blaster"}).want(t, 201)
		gid := fmt.Sprint(g.body["id"])
		admin.do("PATCH", "/admin-api/gadgets/"+gid, map[string]any{"qty": 9}).want(t, 200)
		uid := e.user("target@example.com", "player password")
		admin.do("POST", "/admin-api/users/"+uid+"/ban", map[string]any{"reason": "x"}).want(t, 200)

		label := func(c *client, action string) any {
			rows, _ := c.list(t, "/admin-api/adminAudit", url.Values{"action": {action}})
			if len(rows) == 0 {
				t.Fatalf("no %s row", action)
			}
			l, _ := rows[0]["_labels"].(map[string]any)
			return l["target_id"]
		}
		for action, want := range map[string]string{"update": "Blaster", "user.ban": "target@example.com"} {
			if got := label(admin, action); got != want {
				t.Errorf("%s target label = %v; want %q", action, got, want)
			}
		}
		r := admin.do("GET", "/admin-api/adminAudit/"+fmt.Sprint(e.auditRows("user.ban")[0].ID), nil).want(t, 200)
		if l, _ := r.body["_labels"].(map[string]any); l["target_id"] != "target@example.com" {
			t.Errorf("one audit row: labels %v", r.body["_labels"])
		}
	})
}

// TestAuditActionLabels: every action the panel's code records has a
// label, and the catalog serves them on the audit log's entry (and to no
// other). The actions are read from the module's source, not copied
// here: every string a field named Action is set to, and every string
// literal shaped as the panel's actions are (auth.*, user.*, role.*,
// room.*). The audit log's CSV export says the action in words beside it.
func TestAuditActionLabels(t *testing.T) {
	t.Parallel()
	recorded := recordedActions(t)
	for _, a := range []string{"create", "update", "user.ban", "room.kick", "auth.login", "role.assign_mod", "user.erase"} {
		if !recorded[a] {
			t.Fatalf("the source scan found %v; want at least %s among them", recorded, a)
		}
	}
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e, admin := auditEnv(t, db)
		labels := map[string]string{}
		for _, en := range rows(t, admin.do("GET", "/admin-api", nil).want(t, 200)) {
			m, _ := en["auditActions"].(map[string]any)
			if en["name"] != "adminAudit" {
				if m != nil {
					t.Errorf("%v's catalog entry has auditActions", en["name"])
				}
				continue
			}
			for k, v := range m {
				labels[k], _ = v.(string)
			}
		}
		for a := range recorded {
			if labels[a] == "" || labels[a] == a || strings.Contains(labels[a], ".") {
				t.Errorf("action %s has label %q; want words", a, labels[a])
			}
		}
		if labels["user.ban"] != "Banned" || labels["room.kick"] != "Kicked" || labels["role.assign_mod"] != "Made mod" {
			t.Errorf("labels = %v", labels)
		}

		uid := e.user("labelled@example.com", "player password")
		admin.do("POST", "/admin-api/users/"+uid+"/ban", map[string]any{"reason": "x"}).want(t, 200)
		csvBody := string(admin.do("GET", "/admin-api/adminAudit/_export.csv", nil).want(t, 200).raw)
		header, _, _ := strings.Cut(strings.TrimPrefix(csvBody, "\ufeff"), "\n")
		if !strings.HasSuffix(strings.TrimSpace(header), ",action_label") || !strings.Contains(csvBody, ",Banned") {
			t.Errorf("audit CSV header %q; want action_label last, and a ban's row saying Banned:\n%s", header, csvBody)
		}
	})
}

// recordedActions reads the module's own Go source (not its tests, nor
// the other modules: examples, bench, redisstore, this one) for the
// actions it records.
func recordedActions(t *testing.T) map[string]bool {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	shaped := regexp.MustCompile(`^(auth|user|role|room)\.[a-z_]+(\.[a-z_]+)?$`)
	out := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			switch filepath.ToSlash(rel) {
			case "internal/dbtest", "examples", "bench", "redisstore", "ui", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		str := func(e ast.Expr) (string, bool) {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(lit.Value)
			return s, err == nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Action" {
					if s, ok := str(n.Value); ok {
						out[s] = true
					}
				}
			case *ast.BasicLit:
				if s, ok := str(n); ok && shaped.MatchString(s) {
					out[s] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

package admintest

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/live"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// reportCategories are the categories of the reports tests: a chat line
// as text, a leaderboard as a row, and a name with no evidence.
var reportCategories = []ReportCategory{
	{Key: "abuse", Label: "Abuse", Evidence: "text"},
	{Key: "cheating", Label: "Cheating", Evidence: "row", Resource: "leaderboards"},
	{Key: "name", Label: "Offensive name"},
}

// testClock is a clock a test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// reportRows are the rows of the reports table, by id.
func (e *env) reportRows() []map[string]any {
	e.t.Helper()
	var rows []map[string]any
	if err := e.db.NewSelect().Table("game_reports").Order("id").Scan(context.Background(), &rows); err != nil {
		e.t.Fatal(err)
	}
	// Bun scans MySQL's nullable columns into a map as sql.Null* values:
	// the value, or nil, as the other drivers hand them back.
	for _, row := range rows {
		for k, v := range row {
			if vr, ok := v.(driver.Valuer); ok {
				if row[k], _ = vr.Value(); row[k] == nil {
					continue
				}
			}
			if b, ok := row[k].([]byte); ok {
				row[k] = string(b)
			}
		}
	}
	return rows
}

func TestFileReport(t *testing.T) {
	t.Parallel()
	clock := &testClock{t: time.Now().UTC()}
	eachEnv(t, Options{ReportCategories: reportCategories, Clock: clock.Now}, func(t *testing.T, e *env) {
		ctx := context.Background()
		a := e.admin
		p1, p2, p3 := e.user("p1@example.com", "pw password"), e.user("p2@example.com", "pw password"), e.user("p3@example.com", "pw password")
		for _, tt := range []struct {
			name  string
			r     Report
			want  error
			field string // what the refusal names
		}{
			{"unknown category", Report{ReporterID: p1, PlayerID: p2, Category: "spam"}, ErrUnknownCategory, ""},
			{"unknown player", Report{ReporterID: p1, PlayerID: "no-such-player", Category: "name"}, ErrUnknownPlayer, ""},
			{"unknown reporter", Report{ReporterID: "no-such-player", PlayerID: p2, Category: "name"}, ErrUnknownPlayer, ""},
			{"self", Report{ReporterID: p1, PlayerID: p1, Category: "name"}, ErrInvalidReport, ""},
			{"no reporter", Report{PlayerID: p1, Category: "name"}, ErrInvalidReport, ""},
			{"long text", Report{ReporterID: p1, PlayerID: p2, Category: "name", Text: strings.Repeat("é", 1001)}, ErrInvalidReport, ""},
			{"large evidence", Report{ReporterID: p1, PlayerID: p2, Category: "abuse", Evidence: json.RawMessage(`"` + strings.Repeat("x", 4096) + `"`)}, ErrInvalidReport, ""},
			{"evidence not text", Report{ReporterID: p1, PlayerID: p2, Category: "abuse", Evidence: json.RawMessage(`{"line": "x"}`)}, ErrInvalidReport, ""},
			{"evidence not a row id", Report{ReporterID: p1, PlayerID: p2, Category: "cheating", Evidence: json.RawMessage(`1.5`)}, ErrInvalidReport, ""},
			{"evidence not JSON", Report{ReporterID: p1, PlayerID: p2, Category: "cheating", Evidence: json.RawMessage(`{`)}, ErrInvalidReport, ""},
			{"evidence where none is taken", Report{ReporterID: p1, PlayerID: p2, Category: "name", Evidence: json.RawMessage(`"x"`)}, ErrInvalidReport, ""},
			// What a database cannot store is refused the same on both,
			// naming the field, never the database's own error.
			{"NUL in text", Report{ReporterID: p1, PlayerID: p2, Category: "name", Text: "bad\x00word"}, ErrInvalidReport, "text"},
			{"NUL in room", Report{ReporterID: p1, PlayerID: p2, Category: "name", RoomID: "arena\x00"}, ErrInvalidReport, "room"},
			{"NUL in session", Report{ReporterID: p1, PlayerID: p2, Category: "name", SessionID: "\x00s"}, ErrInvalidReport, "session"},
			{"room not UTF-8", Report{ReporterID: p1, PlayerID: p2, Category: "name", RoomID: "arena\xff"}, ErrInvalidReport, "room"},
			{"session not UTF-8", Report{ReporterID: p1, PlayerID: p2, Category: "name", SessionID: "\xc3("}, ErrInvalidReport, "session"},
			{"lone high surrogate in text evidence", Report{ReporterID: p1, PlayerID: p2, Category: "abuse", Evidence: json.RawMessage(`"gg \ud800 noob"`)}, ErrInvalidReport, "evidence"},
			{"lone low surrogate in text evidence", Report{ReporterID: p1, PlayerID: p2, Category: "abuse", Evidence: json.RawMessage(`"\udc00"`)}, ErrInvalidReport, "evidence"},
			{"reversed surrogates in row evidence", Report{ReporterID: p1, PlayerID: p2, Category: "cheating", Evidence: json.RawMessage(`"\udc00\ud800"`)}, ErrInvalidReport, "evidence"},
			{"evidence not UTF-8", Report{ReporterID: p1, PlayerID: p2, Category: "abuse", Evidence: json.RawMessage("\"\xff\"")}, ErrInvalidReport, "evidence"},
			{"NUL in player", Report{ReporterID: p1, PlayerID: p2 + "\x00", Category: "name"}, ErrUnknownPlayer, ""},
			{"reporter not UTF-8", Report{ReporterID: "\xff", PlayerID: p2, Category: "name"}, ErrUnknownPlayer, ""},
		} {
			_, err := a.FileReport(ctx, tt.r)
			if !errors.Is(err, tt.want) {
				t.Errorf("%s: FileReport = %v; want %v", tt.name, err, tt.want)
			} else if tt.field != "" && !strings.Contains(err.Error(), tt.field) {
				t.Errorf("%s: FileReport = %v; want it to name %s", tt.name, err, tt.field)
			}
		}
		if n := len(e.reportRows()); n != 0 || len(e.auditRows("report.file")) != 0 {
			t.Fatalf("refused reports wrote %d rows, %d entries; want none", n, len(e.auditRows("report.file")))
		}

		abuse := Report{ReporterID: p1, PlayerID: p2, Category: "abuse", Text: "he insulted me", Evidence: json.RawMessage(`"you are bad"`)}
		id1 := must(a.FileReport(ctx, abuse))
		clock.add(9 * time.Minute)
		if id := must(a.FileReport(ctx, abuse)); id != id1 {
			t.Errorf("a duplicate within the window = report %d; want it folded into %d", id, id1)
		}
		other := must(a.FileReport(ctx, Report{ReporterID: p1, PlayerID: p2, Category: "name"}))
		byP3 := must(a.FileReport(ctx, Report{ReporterID: p3, PlayerID: p2, Category: "abuse"}))
		if other == id1 || byP3 == id1 || other == byP3 {
			t.Errorf("another category or reporter folded: ids %d, %d, %d", id1, other, byP3)
		}
		clock.add(2 * time.Minute) // 11 minutes after the first: past the window
		late := must(a.FileReport(ctx, abuse))
		if late == id1 {
			t.Errorf("a duplicate after the window folded into %d", id1)
		}
		rows := e.reportRows()
		if len(rows) != 4 {
			t.Fatalf("reports = %d rows; want 4", len(rows))
		}
		if got := fmt.Sprint(rows[0]["filings"]); got != "2" {
			t.Errorf("the folded report's filings = %s; want 2", got)
		}
		entries := e.auditRows("report.file")
		if len(entries) != 4 {
			t.Fatalf("report.file entries = %d; want 4 (folds are not filings)", len(entries))
		}
		last := entries[len(entries)-1].Payload
		if last["playerId"] != p2 || last["category"] != "abuse" || fmt.Sprint(last["openReports"]) != "4" {
			t.Errorf("the last report.file payload = %v; want playerId %s, category abuse, openReports 4", last, p2)
		}

		// Evidence holding a NUL is stored with the NUL as the text
		// "\u0000" (jsonb holds none; PostgreSQL refused the report).
		must(a.FileReport(ctx, Report{ReporterID: p1, PlayerID: p3, Category: "abuse", Evidence: json.RawMessage(`"a\u0000b"`)}))
		var ev string
		if err := json.Unmarshal([]byte(fmt.Sprintf("%s", e.reportRows()[4]["evidence"])), &ev); err != nil || ev != `a\u0000b` {
			t.Errorf("evidence with a NUL stored as %q (%v); want the text a\\u0000b", ev, err)
		}
	})
}

// A reporter's filings at once (a player tapping "report" twice, each
// message filed on its own goroutine) fold into one report, on both
// databases, and none fails.
func TestFileReportAtOnce(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{ReportCategories: reportCategories}, func(t *testing.T, e *env) {
		p1, p2 := e.user("p1@example.com", "pw password"), e.user("p2@example.com", "pw password")
		const n = 8
		ids, errs := make([]int64, n), make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids[i], errs[i] = e.admin.FileReport(context.Background(), Report{ReporterID: p1, PlayerID: p2, Category: "name"})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("filing %d: %v", i, err)
			}
			if ids[i] != ids[0] {
				t.Fatalf("filings at once = reports %v; want one", ids)
			}
		}
		rows := e.reportRows()
		if len(rows) != 1 || fmt.Sprint(rows[0]["filings"]) != fmt.Sprint(n) || len(e.auditRows("report.file")) != 1 {
			t.Errorf("after %d filings at once: %v, %d report.file entries; want one report filed %d times, one entry", n, rows, len(e.auditRows("report.file")), n)
		}
	})
}

func TestFileReportRateLimit(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{ReportCategories: reportCategories, RateLimit: RateLimitOptions{Reports: NewTokenBucket(2, 1e-6)}}, func(t *testing.T, e *env) {
		ctx := context.Background()
		p1, p2, p3 := e.user("p1@example.com", "pw password"), e.user("p2@example.com", "pw password"), e.user("p3@example.com", "pw password")
		must(e.admin.FileReport(ctx, Report{ReporterID: p1, PlayerID: p2, Category: "name"}))
		must(e.admin.FileReport(ctx, Report{ReporterID: p1, PlayerID: p3, Category: "name"}))
		_, err := e.admin.FileReport(ctx, Report{ReporterID: p1, PlayerID: p3, Category: "abuse"})
		var rl *RateLimitError
		if !errors.Is(err, ErrReportLimited) || !errors.As(err, &rl) || rl.RetryAfter <= 0 {
			t.Fatalf("a third report = %v; want ErrReportLimited with a RateLimitError", err)
		}
		if n := len(e.reportRows()); n != 2 {
			t.Errorf("reports = %d; want 2: a limited report writes nothing", n)
		}
		// The bucket is the reporter's.
		must(e.admin.FileReport(ctx, Report{ReporterID: p3, PlayerID: p1, Category: "name"}))
	})
}

func TestReportsOff(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		cr := e.crew("users")
		p := e.user("p@example.com", "pw password")
		if _, err := e.admin.FileReport(context.Background(), Report{ReporterID: cr.userID, PlayerID: p, Category: "name"}); !errors.Is(err, ErrReportsOff) {
			t.Errorf("FileReport without categories = %v; want ErrReportsOff", err)
		}
		cr.admin.do("GET", "/admin-api/_reports", nil).want(t, 404, "reports_off")
		cr.admin.do("POST", "/admin-api/_reports/"+p+"/claim", nil).want(t, 404, "reports_off")
	})
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		for _, cats := range [][]ReportCategory{
			{{Key: "x"}, {Key: "x"}},
			{{Key: "bad key"}},
			{{Key: "x", Evidence: "row", Resource: "nope"}},
			{{Key: "x", Evidence: "video"}},
		} {
			if _, err := New(db, Options{Secret: testSecret, ReportCategories: cats, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); err == nil || !strings.Contains(err.Error(), "ReportCategories") {
				t.Errorf("New with %+v = %v; want an error naming ReportCategories", cats, err)
			}
		}
	})
}

// reportWorld is a panel with reports, a live hub, an admin, two mods
// scoped to users, a bare mod, reporters and a reported player in a room.
type reportWorld struct {
	e              *env
	cr             crew
	mod2           *client
	mod2ID         string
	hub            *live.Hub
	r1, r2, player string
	room, session  string
	clock          *testClock
	leaderboard    string
}

func newReportWorld(t *testing.T, db *bun.DB, with ...func(*Options)) *reportWorld {
	t.Helper()
	w := &reportWorld{clock: &testClock{t: time.Now().UTC()}}
	w.hub = live.NewHub(live.Options{
		Authenticate: func(r *http.Request) (string, error) { return r.URL.Query().Get("user"), nil },
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	w.hub.Define("arena", live.RoomType{MaxClients: 10, EmptyTimeout: -1, NewState: func() any { return map[string]any{} }})
	t.Cleanup(func() { w.hub.Close() })
	opts := Options{Rooms: w.hub, ReportCategories: reportCategories, Clock: w.clock.Now}
	for _, fn := range with {
		fn(&opts)
	}
	w.e = newEnv(t, db, opts, func(_ *Admin, mux *http.ServeMux) {
		mux.Handle("/ws/", http.StripPrefix("/ws/", w.hub))
	})
	e := w.e
	w.cr = e.crew("users")
	w.mod2ID = e.user("mod2@example.com", "mod password")
	if err := e.admin.Moderation().AssignMod(context.Background(), w.mod2ID, "users"); err != nil {
		t.Fatal(err)
	}
	w.mod2 = e.login("mod2@example.com", "mod password")
	w.r1, w.r2 = e.user("r1@example.com", "pw password"), e.user("r2@example.com", "pw password")
	w.player = e.user("cheater@example.com", "pw password")
	conn, room, session := rtJoin(t, e, "arena", w.player)
	w.room, w.session = room, session
	t.Cleanup(func() { conn.Close() })
	w.leaderboard = fmt.Sprint(w.cr.admin.do("POST", "/admin-api/leaderboards", map[string]any{"id": "lb-7", "name": "Arena 7 season"}).want(t, 201).body["id"])
	ctx := context.Background()
	must(e.admin.FileReport(ctx, Report{ReporterID: w.r1, PlayerID: w.player, Category: "abuse", Text: "insults", RoomID: room, SessionID: session, Evidence: json.RawMessage(`"gg noob"`)}))
	must(e.admin.FileReport(ctx, Report{ReporterID: w.r2, PlayerID: w.player, Category: "cheating", RoomID: room, Evidence: json.RawMessage(`"` + w.leaderboard + `"`)}))
	return w
}

func TestReportClaimRace(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		path := "/admin-api/_reports/" + w.player + "/claim"
		var wg sync.WaitGroup
		codes := make([]*resp, 2)
		for i, c := range []*client{w.cr.modScoped, w.mod2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = c.do("POST", path, nil)
			}()
		}
		wg.Wait()
		got := []int{codes[0].StatusCode, codes[1].StatusCode}
		slices.Sort(got)
		if got[0] != 200 || got[1] != 409 {
			t.Fatalf("two claims at once = %v (%s, %s); want one 200 and one 409", got, codes[0].raw, codes[1].raw)
		}
		loser := codes[0]
		winner, winnerID := w.mod2, w.mod2ID
		if codes[0].StatusCode == 200 {
			loser, winner, winnerID = codes[1], w.cr.modScoped, w.cr.modScopedID
		}
		if loser.body["code"] != "claimed" || !strings.Contains(fmt.Sprint(loser.body["error"]), "since") {
			t.Errorf("the loser's answer = %s; want 409 claimed naming the holder", loser.raw)
		}
		// The holder and the time in params, for the UI's own words.
		if p, _ := loser.body["params"].(map[string]any); p == nil || p["by"] == nil || !strings.Contains(fmt.Sprint(loser.body["error"]), fmt.Sprint(p["by"])) {
			t.Errorf("the loser's params = %v; want by, the holder the message names", loser.body["params"])
		} else if _, err := time.Parse(time.RFC3339, fmt.Sprint(p["since"])); err != nil {
			t.Errorf("params.since = %v; want an RFC 3339 time", p["since"])
		}
		if len(w.e.auditRows("report.claim")) != 1 {
			t.Errorf("report.claim entries = %d; want 1", len(w.e.auditRows("report.claim")))
		}
		winner.do("POST", path, nil).want(t, 200) // again: still theirs
		// The queue names the holder.
		q := w.cr.admin.do("GET", "/admin-api/_reports", nil).want(t, 200)
		players := q.body["players"].([]any)
		claim := players[0].(map[string]any)["claim"].(map[string]any)
		if claim["by"].(map[string]any)["id"] != winnerID {
			t.Errorf("the queue's claim = %v; want %s", claim, winnerID)
		}
		// The other mod may not resolve; a mod may not take over; an admin may.
		other := w.cr.modScoped
		if winner == w.cr.modScoped {
			other = w.mod2
		}
		other.do("POST", "/admin-api/_reports/"+w.player+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 409, "claimed")
		other.do("POST", path, map[string]any{"takeover": true}).want(t, 403)
		w.cr.admin.do("POST", path, map[string]any{"takeover": true}).want(t, 200)
		if e := w.e.auditRows("report.claim"); len(e) != 2 || e[1].Payload["takenFrom"] != winnerID {
			t.Errorf("the takeover's entry = %+v; want takenFrom %s", e, winnerID)
		}
		// A player with no open reports has nothing to claim.
		w.cr.admin.do("POST", "/admin-api/_reports/"+w.r1+"/claim", nil).want(t, 409, "no_open_reports")
	})
}

func TestReportResolveBan(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		e := w.e
		var open []int64
		for _, r := range e.reportRows() {
			open = append(open, toInt64(r["id"]))
		}
		// A mod without the users scope may neither see nor resolve.
		w.cr.modBare.do("GET", "/admin-api/_reports", nil).want(t, 403)
		w.cr.modBare.do("POST", "/admin-api/_reports/"+w.player+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 403)
		// Bad bodies change nothing.
		for _, b := range []map[string]any{
			{"outcome": "explode"},
			{"outcome": "ban"},
			{"outcome": "ban", "ban": map[string]any{"preset": "2y"}},
			{"outcome": "ban", "ban": map[string]any{"preset": "1d", "until": "2099-01-01T00:00:00Z"}},
			{"outcome": "dismiss", "ban": map[string]any{"preset": "1d"}},
			{"outcome": "warn"},
			{"outcome": "dismiss", "note": strings.Repeat("n", 2001)},
			{"outcome": "dismiss", "extra": 1},
		} {
			w.cr.modScoped.do("POST", "/admin-api/_reports/"+w.player+"/resolve", b).want(t, 400)
		}
		w.cr.modScoped.do("POST", "/admin-api/_reports/"+w.cr.modScopedID+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 400, "self_moderation")

		r := w.cr.modScoped.do("POST", "/admin-api/_reports/"+w.player+"/resolve", map[string]any{
			"outcome": "ban", "note": "two reports, checked the replay", "ban": map[string]any{"preset": "7d", "reason": "cheating"},
		}).want(t, 200)
		if fmt.Sprint(r.body["sessionsClosed"]) != "1" {
			t.Errorf("resolve = %s; want sessionsClosed 1 (the player's live session)", r.raw)
		}
		banned, err := e.admin.Auth().Banned(context.Background(), w.player)
		if err != nil || banned == nil || banned.Reason != "cheating" || banned.Until == nil {
			t.Errorf("Banned after the resolution = %+v, %v; want a 7-day ban for cheating", banned, err)
		}
		if n := len(e.auditRows("user.ban")); n != 1 {
			t.Errorf("user.ban entries = %d; want 1: the moderation path's own", n)
		}
		for _, row := range e.reportRows() {
			if row["status"] != "resolved" || row["outcome"] != "ban" {
				t.Errorf("report %v after the ban = %v/%v; want resolved/ban", row["id"], row["status"], row["outcome"])
			}
		}
		entries := e.auditRows("report.resolve")
		if len(entries) != 1 {
			t.Fatalf("report.resolve entries = %d; want exactly 1", len(entries))
		}
		p := entries[0].Payload
		var ids []int64
		for _, v := range p["reports"].([]any) {
			ids = append(ids, toInt64(v))
		}
		mod, _ := p["moderation"].(map[string]any)
		if !slices.Equal(ids, open) || p["outcome"] != "ban" || mod["action"] != "user.ban" || mod["reason"] != "cheating" || entries[0].TargetID != w.player {
			t.Errorf("report.resolve payload = %v; want reports %v, outcome ban, moderation user.ban", p, open)
		}
		// Every report is closed: a second resolution finds none, and the
		// claim went with them.
		w.mod2.do("POST", "/admin-api/_reports/"+w.player+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 409, "no_open_reports")
		q := w.cr.admin.do("GET", "/admin-api/_reports", nil).want(t, 200)
		if n := len(q.body["players"].([]any)); n != 0 {
			t.Errorf("the open queue after the ban has %d players; want 0", n)
		}
		q = w.cr.admin.do("GET", "/admin-api/_reports?status=resolved", nil).want(t, 200)
		if n := len(q.body["players"].([]any)); n != 1 {
			t.Errorf("the resolved queue has %d players; want 1", n)
		}
	})
}

func TestReportResolveOutcomes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		e, ctx := w.e, context.Background()
		resolve := func(outcome string, body map[string]any) *resp {
			t.Helper()
			if body == nil {
				body = map[string]any{}
			}
			body["outcome"] = outcome
			return w.cr.modScoped.do("POST", "/admin-api/_reports/"+w.player+"/resolve", body).want(t, 200)
		}
		refile := func() {
			t.Helper()
			w.clock.add(time.Hour)
			must(e.admin.FileReport(ctx, Report{ReporterID: w.r1, PlayerID: w.player, Category: "name"}))
		}

		resolve("dismiss", nil)
		if banned, _ := e.admin.Auth().Banned(ctx, w.player); banned != nil {
			t.Error("dismiss banned the player")
		}
		if n := len(e.auditRows("user.revoke_sessions")) + len(e.auditRows("user.ban")); n != 0 {
			t.Errorf("dismiss moderated: %d entries", n)
		}

		refile()
		r := resolve("warn", map[string]any{"note": "mind your language"})
		var notes []UserNote
		if err := db.NewSelect().Model(&notes).Where("user_id = ?", w.player).Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(notes) != 1 || notes[0].Body != "mind your language" || notes[0].AuthorID != w.cr.modScopedID || fmt.Sprint(notes[0].ID) != fmt.Sprint(r.body["noteId"]) {
			t.Errorf("warn's notes = %+v, answer %s; want one note by the mod", notes, r.raw)
		}

		refile()
		_, _, tv := e.account(w.player)
		r = resolve("kick", nil)
		if _, _, tv2 := e.account(w.player); tv2 != tv+1 || fmt.Sprint(r.body["sessionsClosed"]) != "1" {
			t.Errorf("kick: token version %d → %d, answer %s; want it bumped and the live session closed", tv, tv2, r.raw)
		}
		if banned, _ := e.admin.Auth().Banned(ctx, w.player); banned != nil {
			t.Error("kick banned the player")
		}
		outcomes := []string{}
		for _, en := range e.auditRows("report.resolve") {
			outcomes = append(outcomes, fmt.Sprint(en.Payload["outcome"]))
		}
		if !slices.Equal(outcomes, []string{"dismiss", "warn", "kick"}) {
			t.Errorf("report.resolve outcomes = %v; want dismiss, warn, kick", outcomes)
		}
	})
}

func TestReportQueue(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		e, ctx := w.e, context.Background()
		// Another player reported three times, two days ago: more reports,
		// none in the last 24 hours, so after w.player.
		old := e.user("old@example.com", "pw password")
		w.clock.add(-48 * time.Hour)
		for _, rep := range []string{w.r1, w.r2, w.cr.userID} {
			must(e.admin.FileReport(ctx, Report{ReporterID: rep, PlayerID: old, Category: "name"}))
		}
		w.clock.add(48 * time.Hour)

		if f, _ := w.cr.modScoped.do("GET", "/admin-api/auth/me", nil).want(t, 200).body["features"].(map[string]any); f["reports"] != true {
			t.Errorf("features = %v; want reports", f)
		}
		q := w.cr.modScoped.do("GET", "/admin-api/_reports", nil).want(t, 200)
		players := q.body["players"].([]any)
		if len(players) != 2 {
			t.Fatalf("queue = %s; want 2 players", q.raw)
		}
		first, second := players[0].(map[string]any), players[1].(map[string]any)
		if first["player"].(map[string]any)["id"] != w.player || fmt.Sprint(first["count"]) != "2" || fmt.Sprint(first["last24h"]) != "2" {
			t.Errorf("first = %v; want %s with 2 reports, 2 in 24 h", first, w.player)
		}
		if second["player"].(map[string]any)["id"] != old || fmt.Sprint(second["count"]) != "3" || fmt.Sprint(second["last24h"]) != "0" {
			t.Errorf("second = %v; want %s with 3 reports, none in 24 h", second, old)
		}
		if n := len(second["reporters"].([]any)); n != 3 {
			t.Errorf("second's reporters = %d; want 3", n)
		}
		// Evidence as declared, rooms live.
		byCat := map[string]map[string]any{}
		for _, l := range first["latest"].([]any) {
			m := l.(map[string]any)
			byCat[m["category"].(string)] = m
		}
		if ev := byCat["abuse"]["evidence"].(map[string]any); ev["kind"] != "text" || ev["text"] != "gg noob" {
			t.Errorf("abuse evidence = %v; want text", ev)
		}
		// The mod may not read leaderboards: a link without its label.
		if ev := byCat["cheating"]["evidence"].(map[string]any); ev["kind"] != "row" || ev["resource"] != "leaderboards" || ev["id"] != w.leaderboard || ev["label"] != nil {
			t.Errorf("cheating evidence as the mod = %v; want a row link without a label", ev)
		}
		adminQ := w.cr.admin.do("GET", "/admin-api/_reports?category=cheating", nil).want(t, 200)
		ev := adminQ.body["players"].([]any)[0].(map[string]any)["latest"].([]any)[0].(map[string]any)["evidence"].(map[string]any)
		if ev["label"] != "Arena 7 season" {
			t.Errorf("cheating evidence as the admin = %v; want the row's label Arena 7 season", ev)
		}
		if room := byCat["abuse"]["room"].(map[string]any); room["id"] != w.room || room["live"] != true || room["sessionLive"] != true {
			t.Errorf("abuse room = %v; want live with the session", room)
		}
		// A report naming the room and no session: the room is live, asked
		// without reading its state.
		if room := byCat["cheating"]["room"].(map[string]any); room["id"] != w.room || room["live"] != true || room["sessionLive"] != false {
			t.Errorf("cheating room = %v; want live, without a session", room)
		}
		if !strings.Contains(string(q.raw), `"categoryLabel":"Cheating"`) || strings.Contains(string(q.raw), `"evidence":"gg`) {
			t.Errorf("queue = %s; want category labels and no raw evidence", q.raw)
		}
		// Filters.
		for _, tt := range []struct {
			query string
			want  []string
		}{
			{"category=name", []string{old}},
			{"category=abuse", []string{w.player}},
			{"room=" + w.room, []string{w.player}},
			{"limit=1", []string{w.player}},
			{"limit=1&offset=1", []string{old}},
			{"status=resolved", nil},
		} {
			var got []string
			for _, p := range w.cr.modScoped.do("GET", "/admin-api/_reports?"+tt.query, nil).want(t, 200).body["players"].([]any) {
				got = append(got, p.(map[string]any)["player"].(map[string]any)["id"].(string))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("?%s = %v; want %v", tt.query, got, tt.want)
			}
		}
		for _, bad := range []string{"category=spam", "status=closed", "limit=0", "limit=101", "offset=-1", "sort=x"} {
			w.cr.modScoped.do("GET", "/admin-api/_reports?"+bad, nil).want(t, 400)
		}
		// A player's page: received and filed.
		pr := w.cr.modScoped.do("GET", "/admin-api/_reports?player="+w.r1, nil).want(t, 200)
		if len(pr.body["received"].([]any)) != 0 || len(pr.body["filed"].([]any)) != 2 {
			t.Errorf("r1's page = %s; want 0 received, 2 filed", pr.raw)
		}
		// The dashboard's widget and chart.
		d := w.cr.modScoped.do("GET", "/admin-api/_dashboard", nil).want(t, 200)
		var widget map[string]any
		found := false
		for _, wd := range d.body["widgets"].([]any) {
			m := wd.(map[string]any)
			if m["id"] == "openReports" {
				widget = m
			}
			found = found || m["id"] == "reportsFiled"
		}
		if widget == nil || !found {
			t.Fatalf("dashboard = %s; want openReports and reportsFiled", d.raw)
		}
		stats := widget["data"].([]any)
		if s := stats[0].(map[string]any); s["label"] != "Open reports" || fmt.Sprint(s["value"]) != "5" {
			t.Errorf("open reports = %v; want 5", s)
		}
		if s := stats[1].(map[string]any); fmt.Sprint(s["value"]) != "48" {
			t.Errorf("oldest = %v; want 48 hours", s)
		}
		if s := stats[2].(map[string]any); s["link"] != "/users/"+old || fmt.Sprint(s["value"]) != "3" {
			t.Errorf("most reported = %v; want %s with 3", s, old)
		}
		// The chart counts each report once, at its first filing: w.player's
		// two in the last 24 hours, old's three 48 hours ago in 7 days.
		for rg, want := range map[string]float64{"24h": 2, "7d": 5} {
			_, filed := series(t, widgets(t, w.cr.modScoped.do("GET", "/admin-api/_dashboard?range="+rg, nil).want(t, 200))["reportsFiled"])
			var total float64
			for _, p := range filed["Reports"] {
				total += p["v"].(float64)
			}
			if total != want {
				t.Errorf("reports filed in %s = %v; want %v (%v)", rg, total, want, filed)
			}
		}
		// A mod who may not work reports is not shown them.
		if bare := w.cr.modBare.do("GET", "/admin-api/_dashboard", nil).want(t, 200); strings.Contains(string(bare.raw), "openReports") {
			t.Errorf("the dashboard of a mod without users shows the open reports: %s", bare.raw)
		}
	})
}

// toInt64 reads a JSON or database number.
func toInt64(v any) int64 {
	var n int64
	fmt.Sscan(fmt.Sprint(v), &n)
	return n
}

// A player's data export holds their reports, received (without who
// filed them) and filed; an erase takes the words of both away and
// closes the open reports about them; its dry run changes nothing.
func TestReportsExportedAndErased(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		admin := w.cr.admin
		export := func(id string) map[string]any {
			t.Helper()
			r := admin.do("GET", "/admin-api/users/"+id+"/_export", nil).want(t, 200)
			rep, _ := r.body["reports"].(map[string]any)
			if rep == nil {
				t.Fatalf("export of %s has no reports: %s", id, r.raw)
			}
			return rep
		}
		got := export(w.player)
		received := got["received"].([]any)
		if len(received) != 2 || len(got["filed"].([]any)) != 0 {
			t.Fatalf("the player's reports = %v; want 2 received, none filed", got)
		}
		for _, r := range received {
			if m := r.(map[string]any); m["reporterId"] != nil || m["playerId"] != nil || m["category"] == nil {
				t.Errorf("a received report in the export = %v; want its category and not who filed it", m)
			}
		}
		filed := export(w.r1)["filed"].([]any)
		if len(filed) != 1 || filed[0].(map[string]any)["text"] != "insults" || filed[0].(map[string]any)["playerId"] != w.player || filed[0].(map[string]any)["evidence"] != "gg noob" {
			t.Errorf("r1's filed reports = %v; want the insults report about %s with its evidence", filed, w.player)
		}

		texts := func() map[string]string {
			var rows []struct {
				ReporterID string `bun:"reporter_id"`
				Text       string `bun:"text"`
				Evidence   *string
				Status     string
				Outcome    *string
			}
			if err := db.NewSelect().TableExpr("game_reports").Column("reporter_id", "text", "evidence", "status", "outcome").Scan(context.Background(), &rows); err != nil {
				t.Fatal(err)
			}
			out := map[string]string{}
			for _, r := range rows {
				out[r.ReporterID] = fmt.Sprintf("%s|%v|%s|%v", r.Text, r.Evidence != nil, r.Status, r.Outcome != nil && *r.Outcome == "erase")
			}
			return out
		}
		before := texts()
		plan := admin.do("POST", "/admin-api/users/"+w.r1+"/_erase?dryRun=true", nil).want(t, 200)
		if after := texts(); !maps.Equal(before, after) {
			t.Fatalf("the dry run changed reports: %v → %v", before, after)
		}
		if !strings.Contains(string(plan.raw), `"relation":"reports","resource":"_reports","label":"Reports","rule":"anonymize","rows":1`) {
			t.Errorf("the dry run's plan = %s; want r1's one report", plan.raw)
		}
		admin.do("POST", "/admin-api/users/"+w.r1+"/_erase", map[string]any{"confirm": "r1@example.com"}).want(t, 200)
		if got := texts(); got[w.r1] != "[erased]|false|open|false" || got[w.r2] != before[w.r2] {
			t.Errorf("after r1's erase = %v; want r1's report open without words, r2's as it was (%v)", got, before[w.r2])
		}
		admin.do("POST", "/admin-api/users/"+w.player+"/_erase", map[string]any{"confirm": "cheater@example.com"}).want(t, 200)
		if got := texts(); got[w.r2] != "|false|resolved|true" || got[w.r1] != "[erased]|false|resolved|true" {
			t.Errorf("after the player's erase = %v; want both reports about them closed by the erase, without words", got)
		}
		if q := admin.do("GET", "/admin-api/_reports", nil).want(t, 200); len(q.body["players"].([]any)) != 0 {
			t.Errorf("the queue after the erase = %s; want empty", q.raw)
		}
	})
}

// A reported player's data export names none of their reporters: not in
// the reports it holds, not in the audit entries of those reports (the
// report.file entry records the reporter for moderators), nowhere.
func TestExportNamesNoReporter(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		ctx := context.Background()
		names := map[string]string{w.r1: "Reporter One", w.r2: "Reporter Two"}
		for id, name := range names {
			if _, err := db.NewUpdate().Table(w.e.admin.TableName("users")).Set("display_name = ?", name).Where("id = ?", id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// The claim and resolution add entries about the player too.
		w.cr.modScoped.do("POST", "/admin-api/_reports/"+w.player+"/claim", nil).want(t, 200)
		w.cr.modScoped.do("POST", "/admin-api/_reports/"+w.player+"/resolve", map[string]any{"outcome": "dismiss", "note": "checked"}).want(t, 200)
		must(w.e.admin.FileReport(ctx, Report{ReporterID: w.r1, PlayerID: w.player, Category: "name"}))

		r := w.cr.admin.do("GET", "/admin-api/users/"+w.player+"/_export", nil).want(t, 200)
		filed := 0
		for _, e := range r.body["audit"].([]any) {
			if e := e.(map[string]any); e["action"] == "report.file" {
				filed++
				if p := e["payload"].(map[string]any); p["category"] == nil || p["playerId"] != w.player {
					t.Errorf("a report.file entry in the export = %v; want its category and player", p)
				}
			}
		}
		if received := r.body["reports"].(map[string]any)["received"].([]any); filed != 3 || len(received) != 3 {
			t.Fatalf("the export holds %d report.file entries and %d received reports; want 3 and 3: %s", filed, len(received), r.raw)
		}
		for _, s := range []string{w.r1, w.r2, "r1@example.com", "r2@example.com", names[w.r1], names[w.r2]} {
			if strings.Contains(string(r.raw), s) {
				t.Errorf("the player's export holds %q, a reporter's: %s", s, r.raw)
			}
		}
		// The moderators' own view keeps who filed each report.
		if q := w.cr.admin.do("GET", "/admin-api/adminAudit?action=report.file", nil).want(t, 200); !strings.Contains(string(q.raw), w.r1) {
			t.Errorf("the audit log lost the reporter of report.file: %s", q.raw)
		}
	})
}

// Working a player's reports follows the rule of moderating them: a mod
// claims and resolves no report about an admin or a fellow mod, in any
// outcome, and changes nothing trying; an admin works them.
func TestReportsFollowTheHierarchy(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		ctx := context.Background()
		for _, target := range []string{w.mod2ID, w.cr.adminID} {
			must(w.e.admin.FileReport(ctx, Report{ReporterID: w.r1, PlayerID: target, Category: "name"}))
			path := "/admin-api/_reports/" + target
			w.cr.modScoped.do("POST", path+"/claim", nil).want(t, 403, "forbidden")
			for _, b := range []map[string]any{
				{"outcome": "dismiss"},
				{"outcome": "warn", "note": "mind your language"},
				{"outcome": "kick"},
				{"outcome": "ban", "ban": map[string]any{"preset": "1d", "reason": "x"}},
			} {
				w.cr.modScoped.do("POST", path+"/resolve", b).want(t, 403, "forbidden")
			}
		}
		for _, action := range []string{"report.claim", "report.resolve", "user.ban", "user.revoke_sessions"} {
			if n := len(w.e.auditRows(action)); n != 0 {
				t.Errorf("%d %s entries after the refusals; want none", n, action)
			}
		}
		open := 0
		for _, r := range w.e.reportRows() {
			if r["status"] == "open" {
				open++
			}
		}
		if open != 4 {
			t.Errorf("open reports after the refusals = %d; want all 4", open)
		}
		// An admin works the mod's reports.
		w.cr.admin.do("POST", "/admin-api/_reports/"+w.mod2ID+"/claim", nil).want(t, 200)
		w.cr.admin.do("POST", "/admin-api/_reports/"+w.mod2ID+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 200)
		// The mod still works a player's.
		w.cr.modScoped.do("POST", "/admin-api/_reports/"+w.player+"/claim", nil).want(t, 200)
	})
}

// holdStatements is a query hook that holds statements whose text holds
// match, once armed: the first one until release is closed (a database
// that has not answered it yet), or, with untilDone, each one until its
// context ends (a statement the database takes longer than its limit
// over). Each held statement is sent on started.
type holdStatements struct {
	mu        sync.Mutex
	match     string
	untilDone bool
	started   chan struct{}
	release   chan struct{}
}

func (h *holdStatements) arm(match string, untilDone bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.match, h.untilDone = match, untilDone
	h.started, h.release = make(chan struct{}, 16), make(chan struct{})
}

func (h *holdStatements) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	h.mu.Lock()
	match, release := h.match, h.release
	if match == "" || !strings.Contains(ev.Query, match) {
		h.mu.Unlock()
		return ctx
	}
	if h.untilDone {
		release = nil
	} else {
		h.match = "" // the first only
	}
	h.started <- struct{}{}
	h.mu.Unlock()
	select {
	case <-release:
	case <-ctx.Done():
	case <-time.After(time.Minute): // a test that never lets go fails, not hangs
	}
	return ctx
}

func (*holdStatements) AfterQuery(context.Context, *bun.QueryEvent) {}

// The statements of the reports queue and of the open-reports widget.
const queueStatement, summaryStatement = "SUM(filings) AS filings", "MIN(created_at) AS oldest"

// The reports queue, a player's reports and the open-reports widget are
// bounded as a list's search is: each read takes one of the operator's
// QueryConcurrency slots (429 past them)...
func TestReportsQueueTakesASlot(t *testing.T) {
	t.Parallel()
	queue := queueStatement
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		hold := &holdStatements{}
		// The held read would hold the panel's one place in the database
		// (DatabaseConcurrency) for the hour: this test is about each
		// operator's own slots.
		w := newReportWorld(t, db.WithQueryHook(hold), func(o *Options) {
			o.QueryConcurrency, o.QueryTimeout, o.DatabaseConcurrency = 1, time.Hour, -1
		})
		mod := w.cr.modScoped
		// One queue read of the mod's is running: the database has not
		// answered it yet. Their next read of the queue, of a player's
		// reports or of the dashboard's figures waits for none.
		hold.arm(queue, false)
		held := make(chan *resp, 1)
		go func() { held <- mod.do("GET", "/admin-api/_reports", nil) }()
		<-hold.started
		for _, path := range []string{"/admin-api/_reports", "/admin-api/_reports?player=" + w.player} {
			if r := mod.do("GET", path, nil).want(t, 429, "rate_limited"); r.Header.Get("Retry-After") == "" {
				t.Errorf("GET %s = 429 without Retry-After", path)
			}
		}
		if err := openReportsWidget(t, mod); err != "busy" {
			t.Errorf("the open-reports widget while the queue runs: error %q; want busy", err)
		}
		w.cr.admin.do("GET", "/admin-api/_reports", nil).want(t, 200) // another operator's slot
		close(hold.release)
		if r := (<-held).want(t, 200); len(r.body["players"].([]any)) != 1 {
			t.Errorf("the held queue = %s; want the player", r.raw)
		}
		mod.do("GET", "/admin-api/_reports?player="+w.player, nil).want(t, 200)
		if err := openReportsWidget(t, mod); err != "" {
			t.Errorf("the open-reports widget = error %q; want its figures", err)
		}
	})
}

// ...and runs under QueryTimeout (503 query_timeout, the database's
// statement ended, logged as a warning).
func TestReportsQueueTimesOut(t *testing.T) {
	t.Parallel()
	queue, summary := queueStatement, summaryStatement
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		hold := &holdStatements{}
		// On PostgreSQL the lock holds up the reports chart too, which
		// no QueryTimeout bounds: the dashboard answers at WidgetTimeout,
		// the open-reports widget "timeout" whether its statement or the
		// widget ran out first.
		w := newReportWorld(t, db.WithQueryHook(hold), func(o *Options) {
			o.QueryTimeout, o.WidgetTimeout = 200*time.Millisecond, 5*time.Second
		})
		mod := w.cr.modScoped
		// Statements the database takes longer than QueryTimeout over are
		// ended there and answered 503.
		timeout(t, db, hold, queue, func() { mod.do("GET", "/admin-api/_reports", nil).want(t, 503, "query_timeout") })
		timeout(t, db, hold, `"player_id" = `, func() {
			mod.do("GET", "/admin-api/_reports?player="+w.player, nil).want(t, 503, "query_timeout")
		})
		timeout(t, db, hold, summary, func() {
			if err := openReportsWidget(t, mod); err != "timeout" {
				t.Errorf("the open-reports widget past QueryTimeout: error %q; want timeout", err)
			}
		})
		// (On PostgreSQL the reports chart, which the lock holds up too,
		// times out with the dashboard: an error of its own.)
		if logs := w.e.logs.String(); strings.Count(logs, "ran past QueryTimeout") != 3 || regexp.MustCompile(`level=ERROR.*(_reports|openReports)`).MatchString(logs) {
			t.Errorf("want the three query timeouts logged as warnings, not errors:\n%s", logs)
		}
	})
}

// openReportsWidget is the error of the dashboard's open-reports widget
// as op reads it ("" when it answered).
func openReportsWidget(t *testing.T, op *client) string {
	t.Helper()
	r := op.do("GET", "/admin-api/_dashboard", nil).want(t, 200)
	for _, wd := range r.body["widgets"].([]any) {
		if wd := wd.(map[string]any); wd["id"] == "openReports" {
			err, _ := wd["error"].(string)
			return err
		}
	}
	t.Fatalf("the dashboard has no openReports widget: %s", r.raw)
	return ""
}

// timeout runs do while the statements holding match take longer than
// any QueryTimeout: on PostgreSQL they wait for a lock another
// transaction holds on the reports table, until the database ends them;
// on MySQL they wait for the table lock another connection holds
// (LOCK TABLES … WRITE); on SQLite, whose reads no lock holds up, the
// hook holds them until their context ends.
func timeout(t *testing.T, db *bun.DB, hold *holdStatements, match string, do func()) {
	t.Helper()
	if db.Dialect().Name() == dialect.MySQL {
		ctx := context.Background()
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "LOCK TABLES game_reports WRITE"); err != nil {
			t.Fatal(err)
		}
		defer func() { _, _ = conn.ExecContext(ctx, "UNLOCK TABLES") }() // before the connection goes back
		do()
		return
	}
	if db.Dialect().Name() != dialect.PG {
		hold.arm(match, true)
		defer hold.arm("", false)
		do()
		return
	}
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "LOCK TABLE game_reports IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	do()
}

// claimOf is the claim a player's reports answer names, nil when none.
func claimOf(t *testing.T, c *client, player string) map[string]any {
	t.Helper()
	claim, _ := c.do("GET", "/admin-api/_reports?player="+player, nil).want(t, 200).body["claim"].(map[string]any)
	return claim
}

// TestReportClaimRelease: the holder releases their claim, an admin
// anyone's, another mod no one's; each release is audited, and the
// claim's time is the stored claim's.
func TestReportClaimRelease(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		mod, modID := w.cr.modScoped, w.cr.modScopedID
		base := "/admin-api/_reports/" + w.player
		claimedAt := w.clock.Now().UTC()
		mod.do("POST", base+"/claim", nil).want(t, 200)
		w.clock.add(5 * time.Minute)
		// The claim's time is when it was made, on the player's page and
		// in the refusal of another mod's resolve (never the zero time).
		claim := claimOf(t, w.mod2, w.player)
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(claim["at"]))
		if err != nil || at.Sub(claimedAt).Abs() > time.Second || claim["stale"] != nil {
			t.Errorf("the player's claim = %v; want at %v, not stale", claim, claimedAt)
		}
		r := w.mod2.do("POST", base+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 409, "claimed")
		if msg := fmt.Sprint(r.body["error"]); strings.Contains(msg, "0001") || !strings.Contains(msg, claimedAt.Format("2006-01-02 15:04")) {
			t.Errorf("the refused resolve says %q; want the claim's time %s", msg, claimedAt.Format("2006-01-02 15:04"))
		}
		// Another mod may not release it; the holder may.
		w.mod2.do("POST", base+"/release", nil).want(t, 409, "claimed")
		w.mod2.do("POST", base+"/release", map[string]any{"extra": 1}).want(t, 400)
		mod.do("POST", base+"/release", nil).want(t, 200)
		if claimOf(t, w.cr.admin, w.player) != nil {
			t.Error("the claim is still there after its holder released it")
		}
		mod.do("POST", base+"/release", nil).want(t, 409, "not_claimed")
		// An admin releases another's claim, audited naming whose.
		w.mod2.do("POST", base+"/claim", nil).want(t, 200)
		rel := w.cr.admin.do("POST", base+"/release", nil).want(t, 200)
		if from, _ := rel.body["releasedFrom"].(map[string]any); from["id"] != w.mod2ID {
			t.Errorf("the admin's release = %s; want releasedFrom %s", rel.raw, w.mod2ID)
		}
		entries := w.e.auditRows("report.release")
		if len(entries) != 2 || entries[0].OperatorID != modID || entries[0].Payload["releasedFrom"] != nil ||
			entries[1].Payload["releasedFrom"] != w.mod2ID || entries[1].TargetID != w.player {
			t.Errorf("report.release entries = %+v; want the holder's own, then the admin's naming %s", entries, w.mod2ID)
		}
		// Released, the other mod claims it.
		mod.do("POST", base+"/claim", nil).want(t, 200)
	})
}

// TestReportClaimExpiry: a claim not acted on for DefaultClaimExpiry no
// longer keeps another mod out: their claim takes it, audited as such,
// and the queue says it expired.
func TestReportClaimExpiry(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		base := "/admin-api/_reports/" + w.player
		w.cr.modScoped.do("POST", base+"/claim", nil).want(t, 200)
		w.clock.add(29 * time.Minute)
		w.mod2.do("POST", base+"/claim", nil).want(t, 409, "claimed")
		w.clock.add(2 * time.Minute)
		q := w.cr.admin.do("GET", "/admin-api/_reports", nil).want(t, 200)
		claim := q.body["players"].([]any)[0].(map[string]any)["claim"].(map[string]any)
		if claim["stale"] != true {
			t.Errorf("the queue's claim after 31 minutes = %v; want stale", claim)
		}
		r := w.mod2.do("POST", base+"/claim", nil).want(t, 200)
		if from, _ := r.body["takenFrom"].(map[string]any); from["id"] != w.cr.modScopedID || r.body["expired"] != true {
			t.Errorf("the claim of an expired claim = %s; want takenFrom %s, expired", r.raw, w.cr.modScopedID)
		}
		entries := w.e.auditRows("report.claim")
		if last := entries[len(entries)-1]; last.OperatorID != w.mod2ID || last.Payload["takenFrom"] != w.cr.modScopedID || last.Payload["expired"] != true {
			t.Errorf("the expired claim's entry = %+v; want takenFrom %s, expired", last, w.cr.modScopedID)
		}
		// The new claim is fresh: the first mod is kept out again.
		w.cr.modScoped.do("POST", base+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 409, "claimed")
		// An expired claim does not keep another mod from resolving.
		w.clock.add(31 * time.Minute)
		w.cr.modScoped.do("POST", base+"/resolve", map[string]any{"outcome": "dismiss"}).want(t, 200)
	})
}

// TestReportResolutionDetails: a resolved report says how: to an admin
// and to the operator who resolved it the ban's end, its reason and the
// note; to another mod what was done and when, and the ban's end, without
// another operator's words.
func TestReportResolutionDetails(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		w.mod2.do("POST", "/admin-api/_reports/"+w.player+"/resolve", map[string]any{
			"outcome": "ban", "note": "checked the replay", "ban": map[string]any{"preset": "7d", "reason": "cheating"},
		}).want(t, 200)
		until := w.clock.Now().UTC().Add(7 * 24 * time.Hour)
		resolution := func(c *client) (map[string]any, map[string]any) {
			t.Helper()
			b := c.do("GET", "/admin-api/_reports?player="+w.player, nil).want(t, 200).body
			rs := b["received"].([]any)
			if len(rs) != 2 {
				t.Fatalf("received = %v; want 2 reports", rs)
			}
			r := rs[0].(map[string]any)
			d, _ := r["resolution"].(map[string]any)
			by, _ := r["resolvedBy"].(map[string]any)
			if r["outcome"] != "ban" || r["resolvedAt"] == nil || by["id"] != w.mod2ID {
				t.Errorf("the resolved report = %v; want ban, when, by %s", r, w.mod2ID)
			}
			return d, by
		}
		for _, c := range []*client{w.cr.admin, w.mod2} {
			d, _ := resolution(c)
			u, err := time.Parse(time.RFC3339Nano, fmt.Sprint(d["until"]))
			if err != nil || u.Sub(until).Abs() > time.Minute || d["reason"] != "cheating" || d["note"] != "checked the replay" {
				t.Errorf("the resolution's details = %v; want until %v, reason and note", d, until)
			}
		}
		if _, by := resolution(w.cr.admin); by["label"] == nil {
			t.Errorf("the admin reads the resolver as %v; want their label", by)
		}
		d, _ := resolution(w.cr.modScoped)
		if d["until"] == nil || d["reason"] != nil || d["note"] != nil {
			t.Errorf("another mod reads the details as %v; want the ban's end only", d)
		}
		// A warning's text is its note; a permanent ban says so.
		must(w.e.admin.FileReport(context.Background(), Report{ReporterID: w.r1, PlayerID: w.r2, Category: "name"}))
		w.cr.admin.do("POST", "/admin-api/_reports/"+w.r2+"/resolve", map[string]any{"outcome": "warn", "note": "mind your name"}).want(t, 200)
		rs := w.cr.admin.do("GET", "/admin-api/_reports?player="+w.r2, nil).want(t, 200).body["received"].([]any)
		if d, _ := rs[0].(map[string]any)["resolution"].(map[string]any); d["note"] != "mind your name" || d["until"] != nil {
			t.Errorf("the warning's details = %v; want its note", d)
		}
	})
}

// TestReportEvidenceReadable: a row's evidence says whether the reader
// may open it: an admin may, a mod whose scopes leave the resource out
// may not (the UI says it is outside their scope).
func TestReportEvidenceReadable(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db)
		for _, tt := range []struct {
			c    *client
			want bool
		}{{w.cr.admin, true}, {w.mod2, false}} {
			rs := tt.c.do("GET", "/admin-api/_reports?player="+w.player, nil).want(t, 200).body["received"].([]any)
			var ev map[string]any
			for _, r := range rs {
				if e, _ := r.(map[string]any)["evidence"].(map[string]any); e["kind"] == "row" {
					ev = e
				}
			}
			if ev == nil || ev["readable"] != tt.want || ev["id"] != w.leaderboard {
				t.Errorf("the row evidence = %v; want readable %v", ev, tt.want)
			}
		}
	})
}

// TestReportClaimExpiryOption: Options.ReportClaimExpiry sets how long a
// claim keeps others out; a negative one fails New.
func TestReportClaimExpiryOption(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		w := newReportWorld(t, db, func(o *Options) { o.ReportClaimExpiry = 2 * time.Minute })
		base := "/admin-api/_reports/" + w.player
		w.cr.modScoped.do("POST", base+"/claim", nil).want(t, 200)
		w.clock.add(time.Minute)
		w.mod2.do("POST", base+"/claim", nil).want(t, 409, "claimed")
		w.clock.add(time.Minute)
		w.mod2.do("POST", base+"/claim", nil).want(t, 200)
		if _, err := New(db, Options{Secret: testSecret, PasswordHasher: testHasher, ReportCategories: reportCategories, ReportClaimExpiry: -time.Second}); err == nil || !strings.Contains(err.Error(), "ReportClaimExpiry") {
			t.Errorf("New with a negative ReportClaimExpiry = %v; want an error naming it", err)
		}
	})
}

package admintest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// relationEnv has guilds (owner declared through Options.Relations with a
// Go field name, members as a Many) and members (guild from a rel: tag).
func relationEnv(t *testing.T, db *bun.DB) *env {
	t.Helper()
	createTables(t, db, (*testGuild)(nil), (*testMember)(nil))
	return newEnv(t, db, Options{
		Tables: tablesWith(map[string]any{"guilds": (*testGuild)(nil), "members": (*testMember)(nil)}),
		Relations: map[string][]Relation{"guilds": {
			{Name: "owner", Target: "users", Kind: One, FK: "OwnerID"},
			{Name: "members", Target: "members", Kind: Many, FK: "GuildID"},
		}},
		Resources: map[string]*Resource{"guilds": DefineResource((*testGuild)(nil), ResourceConfig{
			Label:     "Clans",
			Relations: map[string]RelationConfig{"members": {Label: "Crew"}},
		})},
		PlayersCanRead: true, // TestCustomRelations: a plain user's tabs
	})
}

func labels(row map[string]any) map[string]any {
	l, _ := row["_labels"].(map[string]any)
	return l
}

func TestBuiltinRelations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		var counter statementCounter
		e := newEnv(t, db.WithQueryHook(&counter), Options{})
		c, adminID := e.bootstrap()
		uid := e.user("p@example.com", "player password")
		if _, err := db.NewUpdate().Model((*User)(nil)).Set("display_name = ?", "Player One").Where("id = ?", uid).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for _, body := range []string{"first", "second", "third"} {
			c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": uid, "body": body}).want(t, 201)
		}
		other := e.user("other@example.com", "other password")
		insert(t, db, &[]CloudSave{{UserID: uid, Slot: "a"}, {UserID: other, Slot: "a"}})

		counts := c.do("GET", "/admin-api/users/"+uid+"/_counts", nil).want(t, 200).body
		want := map[string]float64{"userNotes": 3, "cloudSaves": 1, "leaderboardEntries": 0, "analyticsEvents": 0}
		for k, v := range want {
			if counts[k] != v {
				t.Errorf("GET /users/%s/_counts = %v; want %s %v", uid, counts, k, v)
			}
		}
		notes, r := c.list(t, "/admin-api/users/"+uid+"/relations/userNotes", url.Values{"_start": {"0"}, "_end": {"2"}})
		if len(notes) != 2 || r.Header.Get("X-Total-Count") != "3" {
			t.Fatalf("relations/userNotes?_end=2 = %d rows, total %q; want 2 of 3", len(notes), r.Header.Get("X-Total-Count"))
		}
		// The list language applies to the related rows.
		notes, _ = c.list(t, "/admin-api/users/"+uid+"/relations/userNotes", url.Values{"body": {"second"}})
		if len(notes) != 1 || notes[0]["body"] != "second" {
			t.Fatalf("relations/userNotes?body=second = %v", notes)
		}
		// One relations label the foreign keys: display_name, else email.
		l := labels(notes[0])
		if l["user_id"] != "Player One" {
			t.Fatalf("note _labels = %v; want user_id labelled Player One", l)
		}
		if l["author_id"] != "root@example.com" {
			t.Fatalf("note _labels = %v; want author_id %s labelled by email (no display name)", l, adminID)
		}
		saves, _ := c.list(t, "/admin-api/cloudSaves", nil)
		for _, s := range saves {
			if got := labels(s)["user_id"]; s["user_id"] == uid && got != "Player One" || s["user_id"] == other && got != "other@example.com" {
				t.Fatalf("cloudSave %v _labels = %v", s["user_id"], labels(s))
			}
		}
		roles, _ := c.list(t, "/admin-api/roles", nil)
		if len(roles) != 1 || labels(roles[0])["user_id"] != "root@example.com" {
			t.Fatalf("roles = %v; want the admin's row labelled by email", roles)
		}
		read := c.do("GET", fmt.Sprintf("/admin-api/userNotes/%v", notes[0]["id"]), nil).want(t, 200).body
		if labels(read)["user_id"] != "Player One" {
			t.Fatalf("GET userNotes/%v _labels = %v", notes[0]["id"], labels(read))
		}
		// A One relation through the relations endpoint gives its one row.
		owner, _ := c.list(t, fmt.Sprintf("/admin-api/userNotes/%v/relations/user", notes[0]["id"]), nil)
		if len(owner) != 1 || owner[0]["id"] != uid {
			t.Fatalf("relations/user = %v; want the user", owner)
		}

		c.do("GET", "/admin-api/users/"+uid+"/relations/nope", nil).want(t, 404, "unknown_relation")
		c.do("GET", "/admin-api/users/nobody/relations/userNotes", nil).want(t, 404, "not_found")
		c.do("GET", "/admin-api/users/nobody/_counts", nil).want(t, 404, "not_found")
		c.do("GET", "/admin-api/users/"+uid+"/relations/userNotes?nope=1", nil).want(t, 400, "unknown_column")
		c.do("GET", "/admin-api/users/"+uid+"/_nope", nil).want(t, 404)
	})
}

func TestCustomRelations(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := relationEnv(t, db)
		cr := e.crew("guilds")
		c := cr.admin
		if _, err := db.NewUpdate().Model((*User)(nil)).Set("display_name = ?", "Owner").Where("id = ?", cr.userID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		g := &testGuild{Name: "Knights", OwnerID: cr.userID}
		insert(t, db, g)
		g2 := &testGuild{Name: "Empty"}
		insert(t, db, g2)
		insert(t, db, &[]testMember{{GuildID: g.ID, Title: "Sir A"}, {GuildID: g.ID, Title: "Sir B"}, {GuildID: g2.ID + 100, Title: "Orphan"}})
		gid := fmt.Sprint(g.ID)

		// The catalog shows both relations and the link of owner_id.
		var entry map[string]any
		for _, en := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
			if en["name"] == "guilds" {
				entry = en
			}
		}
		// The users' tab of guilds they own is named as the sidebar names
		// the guilds: by the resource's label.
		var usersRels []string
		for _, en := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
			if en["name"] == "users" {
				for _, r := range en["relations"].([]any) {
					m := r.(map[string]any)
					usersRels = append(usersRels, fmt.Sprintf("%s:%s", m["name"], m["label"]))
				}
			}
		}
		if !slices.Contains(usersRels, "guilds:Clans") {
			t.Errorf("users relations = %v; want guilds:Clans (the guilds resource's label)", usersRels)
		}
		var rels []string
		for _, r := range entry["relations"].([]any) {
			m := r.(map[string]any)
			rels = append(rels, fmt.Sprintf("%s:%s:%s:%s:%s", m["name"], m["label"], m["target"], m["kind"], m["fk"]))
		}
		slices.Sort(rels)
		if want := []string{"members:Crew:members:many:guild_id", "owner:Owner:users:one:owner_id"}; !slices.Equal(rels, want) {
			t.Fatalf("catalog guilds relations = %v; want %v", rels, want)
		}
		for _, col := range entry["columns"].([]any) {
			m := col.(map[string]any)
			if m["name"] == "owner_id" {
				if lt, _ := m["linkTo"].(map[string]any); lt["resource"] != "users" || lt["labelColumn"] != "display_name" {
					t.Fatalf("owner_id linkTo = %v", m["linkTo"])
				}
			}
		}

		guilds, _ := c.list(t, "/admin-api/guilds", url.Values{"_sort": {"id"}})
		if labels(guilds[0])["owner_id"] != "Owner" || labels(guilds[1]) != nil {
			t.Fatalf("guild _labels = %v, %v; want owner_id Owner, then none (empty owner)", labels(guilds[0]), labels(guilds[1]))
		}
		members, _ := c.list(t, "/admin-api/members", url.Values{"_sort": {"id"}})
		if labels(members[0])["guild_id"] != "Knights" || labels(members[2]) != nil {
			t.Fatalf("member _labels = %v, %v; want guild_id Knights (rel: tag), none for an orphan", labels(members[0]), labels(members[2]))
		}
		counts := c.do("GET", "/admin-api/guilds/"+gid+"/_counts", nil).want(t, 200).body
		if len(counts) != 1 || counts["members"] != float64(2) {
			t.Fatalf("guild _counts = %v; want members 2", counts)
		}
		crew, r := c.list(t, "/admin-api/guilds/"+gid+"/relations/members", url.Values{"_sort": {"title"}, "_order": {"desc"}})
		if !slices.Equal(column(crew, "title"), []string{"Sir B", "Sir A"}) || r.Header.Get("X-Total-Count") != "2" {
			t.Fatalf("relations/members = %v", column(crew, "title"))
		}
		back, _ := c.list(t, fmt.Sprintf("/admin-api/members/%v/relations/guild", crew[0]["id"]), nil)
		if len(back) != 1 || back[0]["name"] != "Knights" {
			t.Fatalf("members/relations/guild = %v", back)
		}
		empty, r := c.list(t, fmt.Sprintf("/admin-api/guilds/%d/relations/members", g2.ID), nil)
		if len(empty) != 0 || r.Header.Get("X-Total-Count") != "0" {
			t.Fatalf("relations/members of an empty guild = %v", empty)
		}

		// guilds.owner_id -> users puts a Guilds tab on the user page, with
		// nothing declared on users.
		uc := c.do("GET", "/admin-api/users/"+cr.userID+"/_counts", nil).want(t, 200).body
		if uc["guilds"] != float64(1) {
			t.Fatalf("user _counts = %v; want guilds 1 (the inverse of guilds.owner)", uc)
		}
		owned, _ := c.list(t, "/admin-api/users/"+cr.userID+"/relations/guilds", nil)
		if len(owned) != 1 || owned[0]["name"] != "Knights" {
			t.Fatalf("users/relations/guilds = %v; want Knights", owned)
		}
		// members.guild (a rel: tag) has its Many declared on guilds as
		// "members": no second tab over the same column.
		for _, en := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
			var names []string
			for _, r := range en["relations"].([]any) {
				names = append(names, r.(map[string]any)["name"].(string))
			}
			if en["name"] == "guilds" && slices.Contains(names, "members") && len(names) != 2 {
				t.Fatalf("guilds relations = %v; want owner and members only", names)
			}
			if en["name"] == "users" && !slices.Contains(names, "guilds") {
				t.Fatalf("users relations = %v; want the inverse guilds", names)
			}
		}

		// A mod scoped to guilds only: no labels or counts from tables it
		// may not read, and 403 for their relation tabs.
		m := cr.modScoped
		mg, _ := m.list(t, "/admin-api/guilds", url.Values{"_sort": {"id"}})
		if labels(mg[0]) != nil {
			t.Fatalf("mod sees _labels %v of users it may not read", labels(mg[0]))
		}
		// The same for a read by id, right after the admin's read of the
		// row with its labels (a read's text is kept per set of labels).
		if l := labels(c.do("GET", "/admin-api/guilds/"+gid, nil).want(t, 200).body); l == nil {
			t.Fatal("the admin's read of the guild has no _labels")
		}
		if l := labels(m.do("GET", "/admin-api/guilds/"+gid, nil).want(t, 200).body); l != nil {
			t.Fatalf("mod's read of the guild has _labels %v of users it may not read", l)
		}
		if mc := m.do("GET", "/admin-api/guilds/"+gid+"/_counts", nil).want(t, 200).body; len(mc) != 0 {
			t.Fatalf("mod _counts = %v; want none (members is out of scope)", mc)
		}
		m.do("GET", "/admin-api/guilds/"+gid+"/relations/members", nil).want(t, 403, "forbidden")
		m.do("GET", "/admin-api/guilds/"+gid+"/relations/owner", nil).want(t, 403, "forbidden")
		// Read on the source is needed too.
		cr.modBare.do("GET", "/admin-api/guilds/"+gid+"/relations/members", nil).want(t, 403, "forbidden")
		cr.modBare.do("GET", "/admin-api/guilds/"+gid+"/_counts", nil).want(t, 403, "forbidden")
		cr.anon.do("GET", "/admin-api/guilds/"+gid+"/relations/members", nil).want(t, 401, "unauthenticated")
		// A plain user may read both tables.
		cr.user.do("GET", "/admin-api/guilds/"+gid+"/relations/members", nil).want(t, 200)
	})
}

// testTicket points at a guild through a text column, as game tables that
// store every reference as text do.
type testTicket struct {
	bun.BaseModel `bun:"table:tickets"`
	ID            int64  `bun:"id,pk,autoincrement"`
	GuildRef      string `bun:"guild_ref"`
}

// TestLabelsAcrossKeyTypes: a text foreign key to an integer key is
// labelled, and a value that cannot be such a key is left unlabelled
// instead of failing the list.
func TestLabelsAcrossKeyTypes(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGuild)(nil), (*testTicket)(nil))
		e := newEnv(t, db, Options{
			Tables:    tablesWith(map[string]any{"guilds": (*testGuild)(nil), "tickets": (*testTicket)(nil)}),
			Relations: map[string][]Relation{"tickets": {{Name: "guild", Target: "guilds", Kind: One, FK: "guild_ref"}}},
		})
		c, _ := e.bootstrap()
		insert(t, db, &testGuild{Name: "Iron Wolves", OwnerID: "x"})
		insert(t, db, &[]testTicket{{GuildRef: "1"}, {GuildRef: "not-a-number"}, {GuildRef: "99"}})
		rows, _ := c.list(t, "/admin-api/tickets", url.Values{"_sort": {"id"}})
		got := []any{labels(rows[0])["guild_ref"], labels(rows[1])["guild_ref"], labels(rows[2])["guild_ref"]}
		if got[0] != "Iron Wolves" || got[1] != nil || got[2] != nil {
			t.Fatalf("ticket labels = %v; want [Iron Wolves <nil> <nil>]", got)
		}
	})
}

// statementCounter counts the statements run through a *bun.DB, but for
// those of the transaction a list's time limit runs in (BEGIN, SET LOCAL
// statement_timeout on PostgreSQL or MariaDB's two SETs of
// max_statement_time, COMMIT).
type statementCounter struct{ n atomic.Int64 }

func (s *statementCounter) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	for _, p := range []string{"BEGIN", "COMMIT", "ROLLBACK", "SET LOCAL statement_timeout", "SET @gameadmin_limit", "SET SESSION max_statement_time"} {
		if strings.HasPrefix(ev.Query, p) {
			return ctx
		}
	}
	s.n.Add(1)
	return ctx
}

func (*statementCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestListLabelsInPageQuery: labels of keys of one type come with the page
// (a LEFT JOIN), so a list without a total is the session statement and
// the page, however many relations it labels. (Keys of different types
// keep a query of their own: TestLabelsAcrossKeyTypes.)
func TestListLabelsInPageQuery(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		var counter statementCounter
		e := newEnv(t, db.WithQueryHook(&counter), Options{})
		c, adminID := e.bootstrap()
		uid := e.user("p@example.com", "player password")
		if _, err := db.NewUpdate().Model((*User)(nil)).Set("display_name = ?", "Player One").Where("id = ?", uid).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		for _, body := range []string{"first", "second"} {
			c.do("POST", "/admin-api/userNotes", map[string]any{"user_id": uid, "body": body}).want(t, 201)
		}
		counter.n.Store(0)
		notes, _ := c.list(t, "/admin-api/userNotes", url.Values{"_count": {"none"}, "_sort": {"id"}, "_start": {"1"}, "_end": {"2"}})
		// The session check is a prepared statement, which Bun's hooks do
		// not see (TestSessionStatement covers it).
		if n := counter.n.Load(); n != 1 {
			t.Errorf("GET /userNotes ran %d statements through Bun; want 1 (the page with its labels)", n)
		}
		if len(notes) != 1 || notes[0]["body"] != "second" {
			t.Fatalf("notes = %v; want the second", notes)
		}
		if l := labels(notes[0]); l["user_id"] != "Player One" || l["author_id"] != "root@example.com" {
			t.Fatalf("note _labels = %v; want Player One and the admin %s by email", l, adminID)
		}
	})
}

// TestCountsBudget: a row's tab counts that run past their budget
// (Options.CountBudget) answer the statistics' estimates and name them in
// _estimated, instead of scanning for as long as it takes.
func TestCountsBudget(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		// A generous budget first, and a QueryTimeout as generous (the
		// shorter of the two bounds the count, and its default of 5 s is
		// not enough for 300,000 rows under -race on a loaded machine):
		// the exact answer is what this part checks.
		e := newEnv(t, db, Options{CountBudget: time.Minute, QueryTimeout: time.Minute})
		c, _ := e.bootstrap()
		uid := e.user("p@example.com", "player password")
		const events = 300_000
		fill := `WITH g AS (SELECT generate_series(1, ?) AS i)
INSERT INTO game_analytics_events (user_id, name, created_at) SELECT ?, 'e', CURRENT_TIMESTAMP FROM g`
		args := []any{events, uid}
		switch db.Dialect().Name() {
		case dialect.SQLite:
			fill = `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?)
INSERT INTO game_analytics_events (user_id, name, created_at) SELECT ?, 'e', CURRENT_TIMESTAMP FROM g`
		case dialect.MySQL:
			// MariaDB's sequence engine names its rows' range.
			fill = fmt.Sprintf("INSERT INTO game_analytics_events (user_id, name, created_at) SELECT ?, 'e', UTC_TIMESTAMP(6) FROM seq_1_to_%d", events)
			args = []any{uid}
		}
		if _, err := db.ExecContext(ctx, fill, args...); err != nil {
			t.Fatal(err)
		}
		counts := c.do("GET", "/admin-api/users/"+uid+"/_counts", nil).want(t, 200).body
		if counts["analyticsEvents"] != float64(events) || counts["_estimated"] != nil {
			t.Fatalf("_counts = %v; want analyticsEvents %d, exact", counts, events)
		}
		// A panel on the same database whose budget no count can keep.
		tight := newEnv(t, db, Options{CountBudget: time.Nanosecond})
		counts = tight.login("root@example.com", "correct horse").do("GET", "/admin-api/users/"+uid+"/_counts", nil).want(t, 200).body
		est, _ := counts["_estimated"].([]any)
		if n, ok := counts["analyticsEvents"].(float64); !ok || n < 0 || !slices.Contains(est, any("analyticsEvents")) {
			t.Fatalf("_counts past the budget = %v; want analyticsEvents estimated and named in _estimated", counts)
		}
	})
}

// TestCursorWalkPrepared: every page of a keyset walk after the first
// has one text, its cursor's values parameters, so from the third page on
// it runs prepared (which Bun's hooks do not see) and still answers what
// an offset listing does: under a sort on a time with ties, a uniform one
// and a mixed one (whose expanded form uses a value twice).
func TestCursorWalkPrepared(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		var counter statementCounter
		e := newEnv(t, db.WithQueryHook(&counter), Options{})
		c, _ := e.bootstrap()
		uid := e.user("p@example.com", "player password")
		base := time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)
		var notes []UserNote
		for i := range 9 {
			// Pairs share a time, so the id breaks ties.
			notes = append(notes, UserNote{UserID: uid, Body: fmt.Sprint("note ", i), CreatedAt: base.Add(time.Duration(i/2) * time.Minute)})
		}
		insert(t, db, &notes)
		for _, sort := range [][2]string{{"created_at", "desc"}, {"created_at,id", "desc,asc"}, {"id", "asc"}} {
			want := column(func() []map[string]any {
				rows, _ := c.list(t, "/admin-api/userNotes", url.Values{"_sort": {sort[0]}, "_order": {sort[1]}, "_start": {"0"}, "_end": {"100"}})
				return rows
			}(), "id")
			counter.n.Store(0)
			var got []string
			cursor, pages := "", 0
			for {
				q := url.Values{"_sort": {sort[0]}, "_order": {sort[1]}, "_limit": {"2"}}
				if cursor != "" {
					q.Set("_cursor", cursor)
				}
				rows, r := c.list(t, "/admin-api/userNotes", q)
				got = append(got, column(rows, "id")...)
				pages++
				if cursor = r.Header.Get("X-Next-Cursor"); cursor == "" {
					break
				}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("_sort=%s: the walk gave ids %v; the offset listing %v", sort, got, want)
			}
			// The first page, and the first sight of the cursor pages' text.
			if n := counter.n.Load(); pages != 5 || n != 2 {
				t.Errorf("_sort=%s: %d pages ran %d statements through Bun; want 5 pages and 2", sort, pages, n)
			}
		}
	})
}

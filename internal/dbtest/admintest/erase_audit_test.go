package admintest

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
)

// testProfile is a game's table of player profiles: deleted with the
// player (the reference is NOT NULL).
type testProfile struct {
	bun.BaseModel `bun:"table:profiles,alias:pf"`

	ID     int64  `bun:"id,pk,autoincrement"`
	UserID string `bun:"user_id,notnull"`
	Phone  string `bun:"phone,notnull"`
}

// testContact is a game's table of postal addresses: unlinked from the
// player (the reference is nullable).
type testContact struct {
	bun.BaseModel `bun:"table:contacts,alias:ct"`

	ID      int64   `bun:"id,pk,autoincrement"`
	UserID  *string `bun:"user_id"`
	Address string  `bun:"address,notnull"`
}

// testReview is a game's table of player reviews: kept when the player
// is erased, the author's name anonymized.
type testReview struct {
	bun.BaseModel `bun:"table:reviews,alias:rv"`

	ID         int64  `bun:"id,pk,autoincrement"`
	UserID     string `bun:"user_id,notnull"`
	AuthorName string `bun:"author_name,notnull"`
	Body       string `bun:"body,notnull"`
}

// auditTexts are the audit log's payloads as text, by entry id.
func auditTexts(t *testing.T, db *bun.DB) map[int64]string {
	t.Helper()
	var rows []struct {
		ID      int64  `bun:"id"`
		Payload string `bun:"payload"`
	}
	if err := db.NewSelect().Model((*AuditEntry)(nil)).ColumnExpr("id, COALESCE(?, '') AS payload", sqldialect.AsText(bun.Ident("payload"))).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Payload
	}
	return out
}

// TestUserEraseAuditHistory: an erase takes out of every audit entry what
// it takes out of the live tables, whatever the entry: the emails the
// player had before (from the log's own before/after values and sign-ins),
// as typed in any case, also in a failed sign-in that named no account;
// their earlier display names; and the values of the rows the erase
// deletes, unlinks or anonymizes, in the entries of those rows (created
// and edited through the panel). The audit log's CSV export and a kept row's history
// hold none of them; another player's entries are untouched; the dry run
// and the erase count the same entries, which are exactly the ones that
// changed.
func TestUserEraseAuditHistory(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTables(t, db, (*testProfile)(nil), (*testContact)(nil), (*testReview)(nil))
		e := newEnv(t, db, Options{
			Tables: tablesWith(map[string]any{"profiles": (*testProfile)(nil), "contacts": (*testContact)(nil), "reviews": (*testReview)(nil)}),
			Relations: map[string][]Relation{"users": {
				{Name: "profiles", Target: "profiles", Kind: Many, FK: "user_id"},
				{Name: "contacts", Target: "contacts", Kind: Many, FK: "user_id"},
				{Name: "reviews", Target: "reviews", Kind: Many, FK: "user_id"},
			}},
			Resources: map[string]*Resource{"reviews": DefineResource((*testReview)(nil), ResourceConfig{Erase: EraseAnonymize{Columns: []string{"author_name"}}})},
		})
		root, _ := e.bootstrap()
		bob := e.user("Bob.First@example.com", "bob password")
		carol := e.user("carol@example.com", "carol password")
		anon := e.client()

		// Sign-ins failed under the first email, typed in another case:
		// one while it was bob's (his entry), one after (nobody's).
		anon.do("POST", "/admin-api/auth/login", map[string]any{"email": "bOB.fIRST@EXAMPLE.com", "password": "wrong"}).want(t, 401)
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) >= 1 })
		root.do("PATCH", "/admin-api/users/"+bob, map[string]any{"email": "Bob.Second@example.com", "display_name": "Bobby Zyx"}).want(t, 200)
		e.login("BOB.SECOND@example.com", "bob password")
		anon.do("POST", "/admin-api/auth/login", map[string]any{"email": "BOB.FIRST@example.COM", "password": "bob password"}).want(t, 401)
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) >= 2 })
		root.do("PATCH", "/admin-api/users/"+bob, map[string]any{"email": "Bob.Third@Example.com", "display_name": "Robert Qux"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "carol@example.com", "password": "wrong"}).want(t, 401)
		waitFor(t, func() bool { return len(e.auditRows("auth.login_failed")) >= 3 })

		// His rows of the game's tables, written through the panel.
		profile := root.do("POST", "/admin-api/profiles", map[string]any{"user_id": bob, "phone": "+44 7700 900123"}).want(t, 201).body
		profileID := fmt.Sprint(profile["id"])
		root.do("PATCH", "/admin-api/profiles/"+profileID, map[string]any{"phone": "+44 7700 900456"}).want(t, 200)
		contact := root.do("POST", "/admin-api/contacts", map[string]any{"user_id": bob, "address": "12 Quarry Lane, Springfield"}).want(t, 201).body
		contactID := fmt.Sprint(contact["id"])
		root.do("POST", "/admin-api/contacts", map[string]any{"user_id": carol, "address": "7 Elm Row, Shelbyville"}).want(t, 201)
		root.do("POST", "/admin-api/reviews", map[string]any{"user_id": bob, "author_name": "Bobster the Great", "body": "Five stars, would grind again"}).want(t, 201)

		needles := []string{"bob.first@example.com", "bob.second@example.com", "bob.third@example.com",
			"Bobby Zyx", "Robert Qux", "+44 7700 900123", "+44 7700 900456", "12 Quarry Lane", "Bobster the Great"}
		for _, n := range needles {
			if hits := auditHits(t, db, n); len(hits) == 0 {
				t.Fatalf("the fixture's audit log holds no %q", n)
			}
		}
		before := auditTexts(t, db)

		dry := root.do("POST", "/admin-api/users/"+bob+"/_erase?dryRun=true", nil).want(t, 200).body
		if !maps.Equal(auditTexts(t, db), before) {
			t.Fatal("the dry run changed the audit log")
		}
		done := root.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "bob.third@example.com"}).want(t, 200).body
		if fmt.Sprint(dry["resources"]) != fmt.Sprint(done["resources"]) || dry["auditEntries"] != done["auditEntries"] {
			t.Errorf("dry run = %v; erase = %v; want the same counts", dry, done)
		}

		// Gone from every entry and from the log's CSV export.
		for _, n := range needles {
			if hits := auditHits(t, db, n); len(hits) > 0 {
				t.Errorf("%q is still in audit entries %v", n, hits)
			}
		}
		csvBody := strings.ToLower(string(root.do("GET", "/admin-api/adminAudit/_export.csv", nil).want(t, 200).raw))
		history := strings.ToLower(string(root.do("GET", "/admin-api/contacts/"+contactID+"/_history", nil).want(t, 200).raw))
		for _, n := range needles {
			if strings.Contains(csvBody, strings.ToLower(n)) {
				t.Errorf("the audit log's CSV export holds %q", n)
			}
			if strings.Contains(history, strings.ToLower(n)) {
				t.Errorf("the unlinked contact's history holds %q", n)
			}
		}
		// Carol's values stay, and so does what an anonymization keeps.
		for _, n := range []string{"carol@example.com", "7 Elm Row", "Five stars, would grind again"} {
			if hits := auditHits(t, db, n); len(hits) == 0 {
				t.Errorf("the erase took %q, which it keeps, out of the audit log", n)
			}
		}

		// The count is the entries that changed, in the answer and in the
		// erase's own entry.
		after := auditTexts(t, db)
		changed := 0
		for id, text := range before {
			if after[id] != text {
				changed++
			}
		}
		if n, _ := done["auditEntries"].(float64); int(n) != changed || changed < 9 {
			t.Errorf("erase says %v audit entries redacted; %d changed (want at least 9)", done["auditEntries"], changed)
		}
		er := e.auditRows("user.erase")
		if len(er) != 1 || fmt.Sprint(er[0].Payload["auditEntries"]) != fmt.Sprint(done["auditEntries"]) {
			t.Errorf("user.erase entry = %+v; want auditEntries %v", er, done["auditEntries"])
		}
		var profiles int
		must(0, db.NewSelect().Model((*testProfile)(nil)).ColumnExpr("count(*)").Scan(ctx, &profiles))
		if profiles != 0 {
			t.Errorf("%d profiles left; want bob's deleted", profiles)
		}
	})
}

// TestUserEraseReusedEmail: an address the player gave up, and another
// account took since, is that account's now: the erase takes it out of
// the player's entries and leaves the other account's alone.
func TestUserEraseReusedEmail(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		root, _ := e.bootstrap()
		bob := e.user("Shared@example.com", "bob password")
		e.login("shared@example.com", "bob password")
		root.do("PATCH", "/admin-api/users/"+bob, map[string]any{"email": "bob.new@example.com"}).want(t, 200)
		dave := e.user("SHARED@example.com", "dave password")
		e.login("shared@example.com", "dave password")
		root.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "bob.new@example.com"}).want(t, 200)

		var entries []AuditEntry
		must(0, db.NewSelect().Model(&entries).Where("lower(?) LIKE '%shared@example.com%'", sqldialect.AsText(bun.Ident("payload"))).Order("id").Scan(context.Background()))
		davesLogin := false
		for _, en := range entries {
			if en.OperatorID != dave && en.TargetID != dave {
				t.Errorf("entry %d (%s by %s about %s) still holds the address bob had: %v", en.ID, en.Action, en.OperatorID, en.TargetID, en.Payload)
			}
			davesLogin = davesLogin || en.Action == "auth.login" && en.OperatorID == dave
		}
		if !davesLogin {
			t.Errorf("dave's sign-in lost his address: %+v", entries)
		}
	})
}

// auditHits are the ids of the audit entries whose payload holds needle,
// in any case.
func auditHits(t *testing.T, db *bun.DB, needle string) []int64 {
	t.Helper()
	var ids []int64
	if err := db.NewSelect().Model((*AuditEntry)(nil)).Column("id").
		Where("lower(?) LIKE ?", sqldialect.AsText(bun.Ident("payload")), "%"+strings.ToLower(needle)+"%").Order("id").Scan(context.Background(), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// afterSearch is a query hook that runs its func once, right after an
// erase's search of the audit log has read the log's last id (before
// its ranges and its transaction): what the game or another operator
// writes meanwhile.
type afterSearch struct {
	once sync.Once
	run  func()
}

func (h *afterSearch) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *afterSearch) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, "coalesce(max(id), 0)") {
		h.once.Do(h.run)
	}
}

// TestUserEraseAuditWrittenMeanwhile: the erase searches the audit log
// before its transaction, so that the transaction holds its locks only
// as long as the redaction takes; what changes between the two is
// redacted all the same: an entry naming the user's address written
// after the search, and an older entry naming an address the account
// took meanwhile (its transaction then searches the whole log again),
// while the address it had is still redacted.
func TestUserEraseAuditWrittenMeanwhile(t *testing.T) {
	t.Parallel()
	for _, tookAddress := range []bool{false, true} {
		t.Run(fmt.Sprint("took an address: ", tookAddress), func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *bun.DB) {
				ctx := context.Background()
				hook := &afterSearch{}
				e := newEnv(t, db.WithQueryHook(hook), Options{})
				root, _ := e.bootstrap()
				bob := e.user("bob@example.com", "bob password")
				note := func(text string) {
					t.Helper()
					must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "game.note", Resource: "guilds", TargetID: "7", Payload: map[string]any{"text": text}}))
				}
				note("write to Bob.Next@example.com about the guild")
				hook.run = func() {
					note("mail bob@example.com about the refund")
					if tookAddress {
						if _, err := db.NewUpdate().Table("game_users").Set("email = ?", "bob.next@example.com").Where("id = ?", bob).Exec(ctx); err != nil {
							t.Error(err)
						}
					}
				}
				root.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "bob@example.com"}).want(t, 200)
				if hits := auditHits(t, db, "bob@example.com"); len(hits) != 0 {
					t.Errorf("entries %v still name bob@example.com; the one written after the search among them?", hits)
				}
				hits := auditHits(t, db, "bob.next@example.com")
				if tookAddress && len(hits) != 0 {
					t.Errorf("entries %v still name the address bob took during the erase", hits)
				}
				if !tookAddress && len(hits) != 1 {
					t.Errorf("entries naming an address bob never had = %v, want the one note left as it is", hits)
				}
			})
		})
	}
}

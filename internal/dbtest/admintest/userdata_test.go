package admintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/sqldialect"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// playerData gives bob (and carol, who must stay untouched) rows in the
// built-in tables and entries in the audit log: saves, events, a note
// about bob, a note bob wrote about carol, a ban with a reason, an edit of
// bob's name, his sign-in and a reset request naming his email.
func playerData(t *testing.T, e *env, root *client, rootID string) (bob, carol string) {
	t.Helper()
	ctx := context.Background()
	bob = e.user("Bob.Erasable@example.com", "bob password")
	carol = e.user("carol@example.com", "carol password")
	root.do("PATCH", "/admin-api/users/"+bob, map[string]any{"display_name": "Bobby Zyx"}).want(t, 200)
	now := time.Now().UTC()
	insert(t, e.db, &[]CloudSave{
		{UserID: bob, Slot: "main", Data: map[string]any{"coins": 5}, Version: 1, UpdatedAt: now},
		{UserID: bob, Slot: "alt", Data: map[string]any{"coins": 6}, Version: 1, UpdatedAt: now},
		{UserID: carol, Slot: "main", Data: map[string]any{"coins": 7}, Version: 1, UpdatedAt: now},
	})
	insert(t, e.db, &[]AnalyticsEvent{
		{UserID: bob, Name: "login", CreatedAt: now}, {UserID: bob, Name: "buy", CreatedAt: now}, {UserID: bob, Name: "quit", CreatedAt: now},
		{UserID: carol, Name: "login", CreatedAt: now},
	})
	insert(t, e.db, &[]UserNote{
		{UserID: bob, AuthorID: rootID, Body: "asked for a refund", CreatedAt: now},
		{UserID: carol, AuthorID: bob, Body: "carol was rude", CreatedAt: now},
	})
	e.login("Bob.Erasable@example.com", "bob password")
	root.do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "bob.erasable@example.com"}).want(t, 200)
	// The request is answered before its delivery (and audit entry) runs.
	for deadline := time.Now().Add(30 * time.Second); len(e.auditRows("auth.password_reset_requested")) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no audit entry for the reset request")
		}
		time.Sleep(10 * time.Millisecond)
	}
	root.do("POST", "/admin-api/users/"+bob+"/ban", map[string]any{"reason": "chargeback fraud", "until": now.Add(time.Hour)}).want(t, 200)
	must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "support.ticket", Resource: "tickets", TargetID: "t-1", Payload: map[string]any{"from": "Bob.Erasable@example.com wrote in", "topic": "refund"}}))
	return bob, carol
}

// TestUserExport: an admin downloads a player's data as one JSON
// document: the users row without hidden columns, exactly the rows of
// each related resource, and the audit entries about them; audited as
// user.export. Nobody else may.
func TestUserExport(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		cr := e.crew("users", "cloudSaves")
		bob, _ := playerData(t, e, cr.admin, cr.adminID)

		var about int
		if err := db.NewSelect().Model((*AuditEntry)(nil)).Where("resource IN ('users', 'roles', 'auth') AND target_id = ?", bob).
			ColumnExpr("count(*)").Scan(context.Background(), &about); err != nil {
			t.Fatal(err)
		}
		r := cr.admin.do("GET", "/admin-api/users/"+bob+"/_export", nil).want(t, 200)
		if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, bob) {
			t.Fatalf("Content-Disposition = %q", cd)
		}
		var doc struct {
			User      map[string]any              `json:"user"`
			Resources map[string][]map[string]any `json:"resources"`
			Audit     []map[string]any            `json:"audit"`
		}
		if err := json.Unmarshal(r.raw, &doc); err != nil {
			t.Fatalf("export is not one JSON document: %v\n%s", err, r.raw)
		}
		if doc.User["email"] != "Bob.Erasable@example.com" || strings.Contains(string(r.raw), "password_hash") || strings.Contains(string(r.raw), "$argon2") {
			t.Fatalf("export user = %v; want bob without his password", doc.User)
		}
		want := map[string]int{"cloudSaves": 2, "analyticsEvents": 3, "userNotes": 1, "leaderboardEntries": 0}
		for rel, n := range want {
			if len(doc.Resources[rel]) != n {
				t.Errorf("export %s = %d rows; want %d", rel, len(doc.Resources[rel]), n)
			}
			for _, row := range doc.Resources[rel] {
				if row["user_id"] != bob {
					t.Errorf("export %s holds another user's row: %v", rel, row)
				}
			}
		}
		if len(doc.Audit) != about || about < 3 {
			t.Fatalf("export audit = %d entries; the log has %d about bob", len(doc.Audit), about)
		}
		for _, en := range doc.Audit {
			if p, _ := en["payload"].(map[string]any); en["operator_id"] != bob && p["ip"] != nil {
				t.Errorf("export shows an operator's address: %v", en)
			}
		}
		if got := e.auditRows("user.export"); len(got) != 1 || got[0].TargetID != bob || got[0].OperatorID != cr.adminID {
			t.Fatalf("user.export audit = %+v", got)
		}
		cr.modScoped.do("GET", "/admin-api/users/"+bob+"/_export", nil).want(t, 403, "forbidden")
		cr.user.do("GET", "/admin-api/users/"+bob+"/_export", nil).want(t, 403, "forbidden")
		cr.admin.do("GET", "/admin-api/users/nobody/_export", nil).want(t, 404, "not_found")
		cr.admin.do("GET", "/admin-api/configs/x/_export", nil).want(t, 404, "not_found")
	})
}

// grepDB lists the tables (and audit entries) whose text holds needle, in
// any case: every column of every table, cast to text.
func grepDB(t *testing.T, db *bun.DB, needle string) []string {
	t.Helper()
	ctx := context.Background()
	var tables []string
	var err error
	switch db.Dialect().Name() {
	case dialect.PG:
		err = db.NewSelect().TableExpr("information_schema.tables").Column("table_name").Where("table_schema = current_schema()").Scan(ctx, &tables)
	case dialect.MySQL:
		err = db.NewSelect().TableExpr("information_schema.TABLES").ColumnExpr("TABLE_NAME").Where("TABLE_SCHEMA = DATABASE()").Scan(ctx, &tables)
	default:
		err = db.NewSelect().TableExpr("sqlite_master").Column("name").Where("type = 'table' AND name NOT LIKE 'sqlite_%'").Scan(ctx, &tables)
	}
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, tb := range tables {
		var cols []string
		switch db.Dialect().Name() {
		case dialect.PG:
			err = db.NewSelect().TableExpr("information_schema.columns").Column("column_name").Where("table_schema = current_schema() AND table_name = ?", tb).Scan(ctx, &cols)
		case dialect.MySQL:
			err = db.NewSelect().TableExpr("information_schema.COLUMNS").ColumnExpr("COLUMN_NAME").Where("TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", tb).Scan(ctx, &cols)
		default:
			err = db.NewRaw("SELECT name FROM pragma_table_info(?)", tb).Scan(ctx, &cols)
		}
		if err != nil {
			t.Fatal(err)
		}
		q := db.NewSelect().TableExpr("?", bun.Ident(tb)).ColumnExpr("count(*)")
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			for _, c := range cols {
				q = q.WhereOr("lower(?) LIKE ?", sqldialect.AsText(bun.Ident(c)), "%"+strings.ToLower(needle)+"%")
			}
			return q
		})
		var n int
		if err := q.Scan(ctx, &n); err != nil {
			t.Fatalf("grep %s: %v", tb, err)
		}
		if n > 0 {
			hits = append(hits, fmt.Sprintf("%s (%d rows)", tb, n))
		}
	}
	return hits
}

// TestUserErase: a dry run counts and changes nothing; the erase needs
// the email typed back; it leaves no personal value of the player in any
// table or audit entry, keeps legal-hold rows, unlinks nullable references,
// and the player can neither sign in nor be found by email. The audit
// entries keep their ids; the erase is audited with its counts.
func TestUserErase(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{Resources: map[string]*Resource{
			"cloudSaves": DefineResource((*CloudSave)(nil), ResourceConfig{Erase: EraseKeep}), // a legal hold
		}})
		cr := e.crew("users")
		bob, carol := playerData(t, e, cr.admin, cr.adminID)
		entriesBefore := count(t, db, (*AuditEntry)(nil))
		if hits := grepDB(t, db, "bob.erasable@example.com"); len(hits) == 0 {
			t.Fatal("the fixture holds no email to erase")
		}

		dry := cr.admin.do("POST", "/admin-api/users/"+bob+"/_erase?dryRun=true", nil).want(t, 200).body
		rules := map[string]string{}
		rows := map[string]float64{}
		for _, p := range dry["resources"].([]any) {
			p := p.(map[string]any)
			rules[p["relation"].(string)], rows[p["relation"].(string)] = p["rule"].(string), p["rows"].(float64)
		}
		if rules["cloudSaves"] != "keep" || rows["cloudSaves"] != 2 || rules["analyticsEvents"] != "unlink" || rows["analyticsEvents"] != 3 || rules["userNotes"] != "delete" || rows["userNotes"] != 1 {
			t.Fatalf("dry run = %v", dry)
		}
		if dry["auditEntries"].(float64) < 4 {
			t.Fatalf("dry run audit entries = %v; want the edit, sign-in, reset, ban, ticket", dry["auditEntries"])
		}
		if email, _, _ := e.account(bob); email != "Bob.Erasable@example.com" {
			t.Fatal("the dry run changed bob")
		}
		cr.admin.do("POST", "/admin-api/users/"+bob+"/_erase", nil).want(t, 400, "confirmation_required")
		cr.admin.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "carol@example.com"}).want(t, 400, "confirmation_required")
		cr.modScoped.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "Bob.Erasable@example.com"}).want(t, 403, "forbidden")
		cr.admin.do("POST", "/admin-api/users/"+cr.adminID+"/_erase", map[string]any{"confirm": "root@example.com"}).want(t, 400, "self_moderation")

		done := cr.admin.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "bob.ERASABLE@example.com"}).want(t, 200).body
		if done["dryRun"] != false {
			t.Fatalf("erase answer = %v", done)
		}
		for _, needle := range []string{"bob.erasable@example.com", "Bobby Zyx"} {
			if hits := grepDB(t, db, needle); len(hits) > 0 {
				t.Errorf("%q is still in %v", needle, hits)
			}
		}
		if n := count(t, db, (*CloudSave)(nil)); n != 3 {
			t.Errorf("cloud saves = %d; want bob's 2 kept (legal hold) and carol's", n)
		}
		var notes []UserNote
		must(0, db.NewSelect().Model(&notes).Order("id").Scan(ctx))
		// The note bob wrote about carol is carol's: it stays, its author
		// the erased account, which names nobody now.
		if len(notes) != 1 || notes[0].UserID != carol || notes[0].AuthorID != bob {
			t.Errorf("notes = %+v; want only the one about carol", notes)
		}
		var bobEvents int
		must(0, db.NewSelect().Model((*AnalyticsEvent)(nil)).ColumnExpr("count(*)").Where("user_id = ?", bob).Scan(ctx, &bobEvents))
		if bobEvents != 0 || count(t, db, (*AnalyticsEvent)(nil)) != 4 {
			t.Errorf("events: %d still bob's, %d in all; want 0 and 4 (unlinked, kept)", bobEvents, count(t, db, (*AnalyticsEvent)(nil)))
		}
		// The audit log keeps every entry (and gains user.erase); the
		// ban's reason is no personal value and stays.
		if n := count(t, db, (*AuditEntry)(nil)); n != entriesBefore+1 {
			t.Errorf("audit entries = %d; want %d and the erase", n, entriesBefore+1)
		}
		if bans := e.auditRows("user.ban"); len(bans) != 1 || bans[0].Payload["reason"] != "chargeback fraud" {
			t.Errorf("ban entry = %+v", bans)
		}
		if er := e.auditRows("user.erase"); len(er) != 1 || er[0].TargetID != bob {
			t.Errorf("user.erase audit = %+v", er)
		}
		// Gone for sign-in and for lookups by email.
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "Bob.Erasable@example.com", "password": "bob password"}).want(t, 401)
		if _, err := e.admin.Auth().UserIDByEmail(ctx, "bob.erasable@example.com"); !errors.Is(err, ErrNotFound) {
			t.Errorf("UserIDByEmail after the erase = %v; want ErrNotFound", err)
		}
		if b, err := e.admin.Auth().Banned(ctx, bob); err != nil || b == nil || b.Until != nil {
			t.Errorf("erased user's ban = %+v, %v; want one for good", b, err)
		}
	})
}

// TestUserEraseIsAtomic: a fault in the middle of an erase leaves
// everything as it was. The database fails the erase's last step, the
// account's update, which comes after every resource and the audit
// log's redaction: a trigger kills the connection on PostgreSQL and
// raises an error on SQLite and MySQL.
func TestUserEraseIsAtomic(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		root, rootID := e.bootstrap()
		bob, _ := playerData(t, e, root, rootID)
		fault := []string{
			`CREATE TRIGGER erase_fault BEFORE UPDATE ON game_users FOR EACH ROW WHEN (NEW.email LIKE 'erased-%')
BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
		}
		if db.Dialect().Name() == dialect.PG {
			fault = []string{
				`CREATE FUNCTION erase_fault() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_terminate_backend(pg_backend_pid());
	RAISE EXCEPTION 'the connection survived';
END $$`,
				`CREATE TRIGGER erase_fault BEFORE UPDATE ON game_users FOR EACH ROW WHEN (NEW.email LIKE 'erased-%') EXECUTE FUNCTION erase_fault()`,
			}
		}
		if db.Dialect().Name() == dialect.MySQL {
			fault = []string{`CREATE TRIGGER erase_fault BEFORE UPDATE ON game_users FOR EACH ROW
BEGIN IF NEW.email LIKE 'erased-%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected fault'; END IF; END`}
		}
		for _, q := range fault {
			must(db.ExecContext(ctx, q))
		}
		before := grepDB(t, db, "bob.erasable@example.com")
		saves := count(t, db, (*CloudSave)(nil))
		root.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "Bob.Erasable@example.com"}).want(t, 500)
		if after := grepDB(t, db, "bob.erasable@example.com"); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Fatalf("after a failed erase the email is in %v; before in %v", after, before)
		}
		if count(t, db, (*CloudSave)(nil)) != saves || len(e.auditRows("user.erase")) != 0 {
			t.Fatal("a failed erase changed rows or was audited")
		}
		drop := "DROP TRIGGER erase_fault"
		if db.Dialect().Name() == dialect.PG {
			drop += " ON game_users"
		}
		must(db.ExecContext(ctx, drop))
		root.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "Bob.Erasable@example.com"}).want(t, 200)
	})
}

// TestUserEraseDeeperReference: a table two levels down that refers,
// without a cascade, to a row the erase deletes stops the erase; the dry
// run stops at the same place with the same answer, naming the resource,
// and nothing changes.
func TestUserEraseDeeperReference(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		e := newEnv(t, db, Options{})
		root, rootID := e.bootstrap()
		bob, _ := playerData(t, e, root, rootID)
		must(db.ExecContext(ctx, "CREATE TABLE note_pins (id integer PRIMARY KEY, note_id bigint NOT NULL REFERENCES game_user_notes (id))"))
		var note int64
		must(0, db.NewSelect().Model((*UserNote)(nil)).Column("id").Where("user_id = ?", bob).Scan(ctx, &note))
		must(db.ExecContext(ctx, "INSERT INTO note_pins VALUES (1, ?)", note))
		entries := count(t, db, (*AuditEntry)(nil))

		dry := root.do("POST", "/admin-api/users/"+bob+"/_erase?dryRun=true", nil).want(t, 400, "invalid_reference")
		msg, _ := dry.body["error"].(string)
		// SQLite's error does not name the table that refers.
		if !strings.Contains(msg, "User Notes") || db.Dialect().Name() == dialect.PG && !strings.Contains(msg, "note_pins") {
			t.Errorf("dry run error = %q; want the resource it stopped at and (PostgreSQL) the table that refers to it", msg)
		}
		real := root.do("POST", "/admin-api/users/"+bob+"/_erase", map[string]any{"confirm": "Bob.Erasable@example.com"}).want(t, 400, "invalid_reference")
		if real.body["error"] != msg {
			t.Errorf("erase error = %q; want the dry run's %q", real.body["error"], msg)
		}
		if email, _, _ := e.account(bob); email != "Bob.Erasable@example.com" {
			t.Error("the refused erase changed bob")
		}
		if n := count(t, db, (*UserNote)(nil)); n != 2 {
			t.Errorf("notes = %d; want both kept", n)
		}
		if n := count(t, db, (*AuditEntry)(nil)); n != entries {
			t.Errorf("audit entries = %d; want %d (nothing redacted, no user.erase)", n, entries)
		}
		if hits := grepDB(t, db, "bob.erasable@example.com"); len(hits) == 0 {
			t.Error("the refused erase redacted bob's email somewhere")
		}
	})
}

// handlePlayer is a players table whose display name is a handle, unique
// without regard to case and NOT NULL, and with a Personal NOT NULL
// unique column (a friend code) too.
type handlePlayer struct {
	bun.BaseModel `bun:"table:handle_players,alias:hp"`

	ID         int64    `bun:"id,pk,autoincrement"`
	Email      string   `bun:"email,notnull"`
	Handle     string   `bun:"handle,notnull"`
	FriendCode string   `bun:"friend_code,notnull"`
	PwHash     string   `bun:"pw_hash"`
	Banned     *BanInfo `bun:"banned"`
	Gen        int64    `bun:"gen,notnull,default:0"`
}

// TestUserEraseUniqueHandle: erasing writes into a UNIQUE NOT NULL
// display name (and Personal column) a value of the row's own, so the
// second player's erase and every dry run after it succeed; a dry run
// writes nothing; an edit to another player's handle is a 409 naming the
// column.
func TestUserEraseUniqueHandle(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		ddl := `CREATE TABLE handle_players (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE,
			handle TEXT UNIQUE COLLATE NOCASE NOT NULL DEFAULT (hex(randomblob(6))), friend_code VARCHAR(6) NOT NULL UNIQUE DEFAULT (hex(randomblob(3))), pw_hash TEXT, banned TEXT, gen BIGINT NOT NULL DEFAULT 0)`
		if db.Dialect().Name() == dialect.PG {
			ddl = `CREATE TABLE handle_players (id BIGSERIAL PRIMARY KEY, email TEXT NOT NULL UNIQUE,
				handle TEXT NOT NULL CONSTRAINT handle_players_handle_key UNIQUE DEFAULT substr(md5(random()::text), 1, 12), friend_code VARCHAR(6) NOT NULL UNIQUE DEFAULT substr(md5(random()::text), 1, 6), pw_hash TEXT, banned JSONB, gen BIGINT NOT NULL DEFAULT 0)`
		}
		if db.Dialect().Name() == dialect.MySQL {
			// The handle compared without case, as SQLite's NOCASE: MariaDB's _ci collation.
			ddl = "CREATE TABLE handle_players (id BIGINT AUTO_INCREMENT PRIMARY KEY, email VARCHAR(255) NOT NULL UNIQUE, " +
				"handle VARCHAR(64) NOT NULL UNIQUE DEFAULT (LEFT(MD5(RAND()), 12)), friend_code VARCHAR(6) NOT NULL UNIQUE DEFAULT (LEFT(MD5(RAND()), 6)), " +
				"pw_hash VARCHAR(255), banned JSON, gen BIGINT NOT NULL DEFAULT 0) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci"
		}
		must(db.ExecContext(ctx, ddl))
		e := newEnv(t, db, Options{
			Tables:      tablesWith(map[string]any{"users": (*handlePlayer)(nil)}),
			UserColumns: UserColumns{PasswordHash: "pw_hash", DisplayName: "handle", Ban: "banned", TokenVersion: "gen"},
			Resources: map[string]*Resource{"users": DefineResource((*handlePlayer)(nil), ResourceConfig{
				Columns: map[string]ColumnConfig{"friend_code": {Personal: true}},
			})},
		})
		root, rootID := e.bootstrap()
		var ids []int64
		for i, h := range []string{"Ann", "Bo", "Cy"} {
			p := &handlePlayer{Email: strings.ToLower(h) + "@example.com", Handle: h, FriendCode: fmt.Sprintf("FC-%d", i)}
			must(db.NewInsert().Model(p).Exec(ctx))
			ids = append(ids, p.ID)
		}
		// A handle another player has, in another case: 409 naming it.
		r := root.do("PATCH", fmt.Sprintf("/admin-api/users/%d", ids[1]), map[string]any{"handle": "ann"})
		if db.Dialect().Name() == dialect.PG {
			r = root.do("PATCH", fmt.Sprintf("/admin-api/users/%d", ids[1]), map[string]any{"handle": "Ann"})
		}
		r.want(t, 409, "conflict")
		if msg := fmt.Sprint(r.body["error"]); !strings.Contains(msg, "Handle") || strings.Contains(msg, "Ann") {
			t.Errorf("409 message = %q; want the column named by its label, not the value", msg)
		}
		if f, _ := r.body["fields"].(map[string]any); f["handle"] == nil {
			t.Errorf("409 fields = %v; want handle", r.body["fields"])
		}
		_ = rootID
		for i, id := range ids {
			path := fmt.Sprintf("/admin-api/users/%d/_erase", id)
			var before handlePlayer
			must(0, db.NewSelect().Model(&before).Where("id = ?", id).Scan(ctx))
			root.do("POST", path+"?dryRun=true", nil).want(t, 200)
			var after handlePlayer
			must(0, db.NewSelect().Model(&after).Where("id = ?", id).Scan(ctx))
			if after != before {
				t.Fatalf("dry run %d changed the row: %+v → %+v", i, before, after)
			}
			root.do("POST", path, map[string]any{"confirm": before.Email}).want(t, 200)
			must(0, db.NewSelect().Model(&after).Where("id = ?", id).Scan(ctx))
			if after.Handle != fmt.Sprintf("erased-%d", id) || after.FriendCode == before.FriendCode || len(after.FriendCode) > 6 || after.FriendCode == "" {
				t.Fatalf("erased player %d = %+v; want handle erased-%d and a new friend code of at most 6", i, after, id)
			}
			// A dry run after erases (of this one, and of the next).
			root.do("POST", path+"?dryRun=true", nil).want(t, 200)
		}
		if n := len(e.auditRows("user.erase")); n != len(ids) {
			t.Errorf("user.erase entries = %d; want %d (dry runs write none)", n, len(ids))
		}
	})
}

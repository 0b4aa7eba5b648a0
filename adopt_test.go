package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/testdb"
	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"
)

// A game with live players, adopted as it is: text ids the game makes
// ("acc_…"), a NOT NULL password column of bcrypt hashes (and of markers
// for accounts made by a platform login), years of mixed-case emails, two
// of them differing only in case, and a nullable column the panel is
// never given.
type liveAccount struct {
	bun.BaseModel `bun:"table:accounts,alias:acc"`

	ID           string   `bun:"id,pk"`
	Mail         string   `bun:"mail,notnull"`
	Passhash     string   `bun:"passhash,notnull"`
	Region       *string  `bun:"region"`
	Nick         string   `bun:"nick"` // nullable, read into a string
	TokenVersion int64    `bun:"token_version,notnull,default:0"`
	Ban          *BanInfo `bun:"ban"`
}

var accountColumns = UserColumns{Email: "mail", PasswordHash: "passhash"}

// countingHasher counts the hashes a hasher computes (Verify calls that
// did the work, i.e. returned no error), so a test can show that a
// refusal costs what a wrong password costs.
type countingHasher struct {
	PasswordHasher
	work atomic.Int64
}

func (c *countingHasher) Verify(password, encoded string) (bool, error) {
	ok, err := c.PasswordHasher.Verify(password, encoded)
	if err == nil {
		c.work.Add(1)
	}
	return ok, err
}

// gameCheck is the game's own login: bcrypt only.
func gameCheck(t *testing.T, db *bun.DB, id, password string) {
	t.Helper()
	var h string
	if err := db.NewSelect().Table("accounts").Column("passhash").Where("id = ?", id).Scan(context.Background(), &h); err != nil {
		t.Fatal(err)
	}
	if err := bcrypt.CompareHashAndPassword([]byte(h), []byte(password)); err != nil {
		t.Fatalf("the game's bcrypt login rejects %s's password (stored %.7s…): %v", id, h, err)
	}
}

func storedHash(t *testing.T, db *bun.DB, id string) string {
	t.Helper()
	var h string
	if err := db.NewSelect().Table("accounts").Column("passhash").Where("id = ?", id).Scan(context.Background(), &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func bcryptOf(t *testing.T, prefix, password string) string {
	t.Helper()
	b, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return prefix + string(b)[4:]
}

// seedLiveAccounts writes the game's players by SQL, as its own code did.
func seedLiveAccounts(t *testing.T, db *bun.DB) {
	t.Helper()
	createTables(t, db, (*liveAccount)(nil))
	argon := must(Argon2id{Memory: 128, Time: 2, Threads: 1}.Hash("dave password"))
	rows := []liveAccount{
		{ID: "acc_alice", Mail: "Alice.Smith@Example.COM", Passhash: bcryptOf(t, "$2a$", "alice password")},
		{ID: "acc_bob", Mail: "bob@example.com", Passhash: bcryptOf(t, "$2b$", "bob password")},
		{ID: "acc_carol", Mail: "Carol@example.com", Passhash: bcryptOf(t, "$2y$", "carol password")},
		{ID: "acc_dave", Mail: "dave@example.com", Passhash: argon},
		{ID: "acc_sso1", Mail: "sso1@example.com", Passhash: "!"},
		{ID: "acc_sso2", Mail: "sso2@example.com", Passhash: ""},
		{ID: "acc_sso3", Mail: "sso3@example.com", Passhash: "*"},
		{ID: "acc_junk", Mail: "junk@example.com", Passhash: "sha1$5f4dcc3b5aa765d61d8327deb882cf99"},
		{ID: "acc_bigcost", Mail: "bigcost@example.com", Passhash: "$2a$31$" + strings.Repeat("x", 53)},
		{ID: "acc_twin1", Mail: "Twin@Example.com", Passhash: bcryptOf(t, "$2a$", "twin one")},
		{ID: "acc_twin2", Mail: "twin@example.com", Passhash: bcryptOf(t, "$2a$", "twin two")},
	}
	insert(t, db, &rows)
}

// liveOptions adopts the accounts table: the game's bcrypt, its ids.
func liveOptions(hasher PasswordHasher, deliver func(context.Context, ResetRequest) error) Options {
	var n atomic.Int64
	return Options{
		Tables:         map[string]any{"users": (*liveAccount)(nil)},
		UserColumns:    accountColumns,
		PasswordHasher: hasher,
		OnResetRequest: deliver,
		Resources: map[string]*Resource{"users": DefineResource((*liveAccount)(nil), ResourceConfig{
			Create: CreateConfig{Defaults: func(context.Context, DefaultsContext) (map[string]any, error) {
				return map[string]any{"id": fmt.Sprintf("acc_new%d", n.Add(1))}, nil
			}},
		})},
	}
}

// mailbox is an OnResetRequest that keeps what it was given.
type mailbox struct {
	mu   sync.Mutex
	sent []ResetRequest
}

func (m *mailbox) deliver(_ context.Context, r ResetRequest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, r)
	return nil
}

// wait returns the n-th delivery (1-based), waiting for the background
// worker that sends it.
func (m *mailbox) wait(t *testing.T, n int) ResetRequest {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		m.mu.Lock()
		if len(m.sent) >= n {
			r := m.sent[n-1]
			m.mu.Unlock()
			return r
		}
		m.mu.Unlock()
	}
	t.Fatalf("no delivery #%d of a reset link", n)
	return ResetRequest{}
}

// TestAdoptLivePlayers: an operator signs in, resets, changes a password
// and creates players on a live game's accounts table, and not one player
// nor the game's own bcrypt login is harmed: no scheme changes, mixed-case
// emails sign in, markers that are not hashes are refused like a wrong
// password (and cost the same), ids follow the game's Create.Defaults, a
// NOT NULL password column gets a marker, and no answer is a 500.
func TestAdoptLivePlayers(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		seedLiveAccounts(t, db)
		box := &mailbox{}
		hasher := &countingHasher{PasswordHasher: Bcrypt{Cost: bcrypt.MinCost}}
		e := newEnv(t, db, liveOptions(hasher, box.deliver))

		// Bootstrap: the id from Create.Defaults, the email as typed, the
		// unset nullable column NULL, the hash bcrypt.
		root := e.client()
		r := root.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": " Root@Studio.Example ", "password": "correct horse"}).want(t, 201)
		rootID := r.body["userId"]
		if rootID != "acc_new1" {
			t.Fatalf("bootstrap id = %v; want acc_new1 from Create.Defaults", rootID)
		}
		var boot struct {
			Mail         string
			Region, Nick *string
		}
		if err := db.NewSelect().Table("accounts").Column("mail", "region", "nick").Where("id = 'acc_new1'").Scan(ctx, &boot.Mail, &boot.Region, &boot.Nick); err != nil {
			t.Fatal(err)
		}
		if boot.Mail != "Root@Studio.Example" || boot.Region != nil || boot.Nick != nil {
			t.Fatalf("bootstrap row mail=%q region=%v nick=%v; want the email as typed, region and nick NULL", boot.Mail, boot.Region, boot.Nick)
		}
		gameCheck(t, db, "acc_new1", "correct horse")

		// Sign-in in any case; no stored hash changes scheme (or at all).
		before := map[string]string{}
		for _, id := range []string{"acc_alice", "acc_bob", "acc_carol", "acc_dave"} {
			before[id] = storedHash(t, db, id)
		}
		for _, c := range []struct{ email, password, id string }{
			{"alice.smith@example.com", "alice password", "acc_alice"},
			{"ALICE.SMITH@EXAMPLE.COM", "alice password", "acc_alice"},
			{"Alice.Smith@Example.COM", "alice password", "acc_alice"},
			{"BOB@example.com", "bob password", "acc_bob"},
			{"carol@EXAMPLE.com", "carol password", "acc_carol"},
			{"Dave@Example.com", "dave password", "acc_dave"},
			// Twins: the exact match wins.
			{"Twin@Example.com", "twin one", "acc_twin1"},
			{"twin@example.com", "twin two", "acc_twin2"},
		} {
			r := e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": c.email, "password": c.password}).want(t, 200)
			if r.body["userId"] != c.id {
				t.Fatalf("login %s = %s; want %s", c.email, r.raw, c.id)
			}
		}
		for id, h := range before {
			if got := storedHash(t, db, id); got != h {
				t.Fatalf("%s's hash changed at sign-in: %.10s… -> %.10s…", id, h, got)
			}
		}
		gameCheck(t, db, "acc_alice", "alice password")

		// Twins in neither case: nobody is signed in, and the log names both.
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "TWIN@example.com", "password": "twin one"}).want(t, 401, "invalid_credentials")
		if l := e.logs.String(); !strings.Contains(l, "acc_twin1") || !strings.Contains(l, "acc_twin2") {
			t.Fatalf("ambiguous sign-in logged no user ids:\n%s", l)
		}

		// Values that are not hashes: 401, one hash of work as for a wrong
		// password, an audit row, a warning naming the user, never the value.
		hasher.work.Store(0)
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "bob@example.com", "password": "wrong password"}).want(t, 401, "invalid_credentials")
		wrongWork := hasher.work.Load()
		for _, c := range []struct{ email, id, value string }{
			{"sso1@example.com", "acc_sso1", "!"},
			{"sso2@example.com", "acc_sso2", ""},
			{"SSO3@example.com", "acc_sso3", "*"},
			{"junk@example.com", "acc_junk", "sha1$5f4dcc3b5aa765d61d8327deb882cf99"},
			{"bigcost@example.com", "acc_bigcost", "$2a$31$"},
		} {
			hasher.work.Store(0)
			e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": c.email, "password": "some password"}).want(t, 401, "invalid_credentials")
			if w := hasher.work.Load(); w != wrongWork {
				t.Errorf("%s: %d hashes for a refusal; a wrong password costs %d", c.id, w, wrongWork)
			}
			audited := func() bool {
				return slices.ContainsFunc(e.auditRows("auth.login_failed"), func(a AuditEntry) bool { return a.TargetID == c.id })
			}
			for deadline := time.Now().Add(5 * time.Second); !audited() && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			if !audited() {
				t.Fatalf("%s: no auth.login_failed audit row for it", c.id)
			}
			if !strings.Contains(e.logs.String(), "userId="+c.id) {
				t.Fatalf("%s: no warning naming the user", c.id)
			}
			if c.value != "" && strings.Contains(e.logs.String(), c.value) {
				t.Fatalf("%s: the log holds the stored value %q", c.id, c.value)
			}
		}

		// Reset, by an email in another case: mailed to the stored address;
		// the new hash is the game's scheme.
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "alice.SMITH@example.com"}).want(t, 200)
		mail := box.wait(t, 1)
		if mail.Email != "Alice.Smith@Example.COM" || mail.UserID != "acc_alice" {
			t.Fatalf("reset mail to %q (%s); want the stored address of acc_alice", mail.Email, mail.UserID)
		}
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": mail.Token, "password": "alice new password"}).want(t, 200)
		gameCheck(t, db, "acc_alice", "alice new password")

		// Password change through the panel: still bcrypt.
		alice := e.login("alice.smith@example.com", "alice new password")
		alice.do("POST", "/admin-api/auth/password", map[string]any{"current": "alice new password", "new": "alice third password"}).want(t, 200)
		gameCheck(t, db, "acc_alice", "alice third password")

		// Create with a password: bcrypt, the game's id, never echoed.
		n := count(t, db, (*liveAccount)(nil))
		root.do("POST", "/admin-api/users", map[string]any{"mail": "New.Player@Example.com", "password": "short"}).want(t, 400, "password_too_short")
		root.do("POST", "/admin-api/users", map[string]any{"mail": "New.Player@Example.com", "password": 12345678}).want(t, 400, "invalid_value")
		root.do("POST", "/admin-api/users", map[string]any{"mail": "ALICE.smith@example.COM", "password": "long enough"}).want(t, 409, "conflict")
		// bcrypt reads 72 bytes: a longer password is refused, not cut.
		root.do("POST", "/admin-api/users", map[string]any{"mail": "Long@Example.com", "password": strings.Repeat("x", 73)}).want(t, 400, "password_too_long")
		if got := count(t, db, (*liveAccount)(nil)); got != n {
			t.Fatalf("refused creates wrote %d rows", got-n)
		}
		r = root.do("POST", "/admin-api/users", map[string]any{"mail": "New.Player@Example.com", "password": "new player pw"}).want(t, 201)
		newID, _ := r.body["id"].(string)
		if !strings.HasPrefix(newID, "acc_new") || r.body["mail"] != "New.Player@Example.com" || r.body["region"] != nil {
			t.Fatalf("created = %s; want an acc_new id, the email as typed, region null", r.raw)
		}
		if strings.Contains(string(r.raw), "$2a$") || strings.Contains(string(r.raw), "password") {
			t.Fatalf("create answer holds the password or its hash: %s", r.raw)
		}
		gameCheck(t, db, newID, "new player pw")
		var nick *string
		if err := db.NewSelect().Table("accounts").Column("nick").Where("id = ?", newID).Scan(ctx, &nick); err != nil || nick != nil {
			t.Fatalf("created row's nick = %v, %v; want NULL", nick, err)
		}
		e.login("new.player@example.com", "new player pw")

		// Create without one: a marker no password verifies, then an invite.
		r = root.do("POST", "/admin-api/users", map[string]any{"mail": "Invited@Example.com"}).want(t, 201)
		invited := r.body["id"].(string)
		if h := storedHash(t, db, invited); h != unusableHash {
			t.Fatalf("a NOT NULL password column without a password holds %q; want %q", h, unusableHash)
		}
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "invited@example.com", "password": unusableHash}).want(t, 401, "invalid_credentials")
		root.do("POST", "/admin-api/users/"+invited+"/invite", nil).want(t, 200)
		inv := box.wait(t, 2)
		if !inv.Invite || inv.Email != "Invited@Example.com" {
			t.Fatalf("invite = %+v", inv)
		}
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": inv.Token, "password": "invited password"}).want(t, 200)
		gameCheck(t, db, invited, "invited password")

		// The email's case is no way around uniqueness on update either.
		root.do("PATCH", "/admin-api/users/acc_bob", map[string]any{"mail": "TWIN@EXAMPLE.COM"}).want(t, 409, "conflict")
		root.do("PATCH", "/admin-api/users/acc_bob", map[string]any{"mail": "Bob@Example.com"}).want(t, 200)
		// password is write-only and only on create.
		root.do("PATCH", "/admin-api/users/acc_bob", map[string]any{"password": "bob new password"}).want(t, 400, "unknown_column")

		// Nothing readable holds a hash.
		for _, path := range []string{"/admin-api/users", "/admin-api/users/acc_alice", "/admin-api/adminAudit", "/admin-api/users/_export.csv"} {
			raw := string(root.do("GET", path, nil).want(t, 200).raw)
			for _, leak := range []string{"$2a$", "$2b$", "$2y$", "$argon2id$", "passhash"} {
				if strings.Contains(raw, leak) {
					t.Fatalf("GET %s holds %q", path, leak)
				}
			}
		}
		// The game's own lookups agree with sign-in on who an email is.
		auth := e.admin.Auth()
		if id, err := auth.UserIDByEmail(ctx, " alice.smith@EXAMPLE.com"); id != "acc_alice" || err != nil {
			t.Fatalf("UserIDByEmail(alice, another case) = %q, %v", id, err)
		}
		if id, err := auth.UserIDByEmail(ctx, "twin@example.com"); id != "acc_twin2" || err != nil {
			t.Fatalf("UserIDByEmail(twin, exact) = %q, %v", id, err)
		}
		if _, err := auth.UserIDByEmail(ctx, "TWIN@example.com"); !errors.Is(err, ErrAmbiguousEmail) {
			t.Fatalf("UserIDByEmail(twins, neither case) = %v; want ErrAmbiguousEmail", err)
		}
		if _, err := auth.UserIDByEmail(ctx, "nobody@example.com"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("UserIDByEmail(nobody) = %v; want ErrNotFound", err)
		}
		if l := e.logs.String(); strings.Contains(l, "level=ERROR") {
			t.Fatalf("errors logged:\n%s", l)
		}
	})
}

// TestAdoptDefaultHasherKeepsScheme: with the default hasher (argon2id) a
// game's bcrypt hash is verified and left as it is; UpgradeBcrypt is the
// integrator's explicit choice to rewrite it.
func TestAdoptDefaultHasherKeepsScheme(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		seedLiveAccounts(t, db)
		bob := storedHash(t, db, "acc_bob")
		e := newEnv(t, db, liveOptions(Argon2id{Memory: 64, Time: 1}, nil))
		e.login("Bob@example.com", "bob password")
		if got := storedHash(t, db, "acc_bob"); got != bob {
			t.Fatalf("the default hasher rewrote a bcrypt hash at sign-in: %.10s…", got)
		}
		gameCheck(t, db, "acc_bob", "bob password")

		up := newEnv(t, db, liveOptions(Argon2id{Memory: 64, Time: 1, UpgradeBcrypt: true}, nil))
		up.login("bob@example.com", "bob password")
		if got := storedHash(t, db, "acc_bob"); !strings.HasPrefix(got, "$argon2id$") {
			t.Fatalf("UpgradeBcrypt: hash after sign-in = %.10s…; want argon2id", got)
		}
		up.login("bob@example.com", "bob password")
	})
}

// TestNullPasswordRefused: a built-in users row whose password is NULL
// (made by StartSession's SSO path, say) is refused like a wrong password.
func TestNullPasswordRefused(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		e.bootstrap()
		id := e.user("nopass@example.com", "temporary pw")
		if _, err := e.db.NewUpdate().Table("game_users").Set("password_hash = NULL").Where("id = ?", id).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "nopass@example.com", "password": "temporary pw"}).want(t, 401, "invalid_credentials")
		if !strings.Contains(e.logs.String(), "userId="+id) {
			t.Fatalf("no warning naming the user:\n%s", e.logs.String())
		}
	})
}

// TestPasswordFieldOnlyOnUsers: "password" is write-only on users' create
// and an unknown column everywhere else.
func TestPasswordFieldOnlyOnUsers(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		root, _ := e.bootstrap()
		root.do("POST", "/admin-api/configs", map[string]any{"key": "motd", "password": "long enough"}).want(t, 400, "unknown_column")
		root.do("POST", "/admin-api/users", map[string]any{"email": "p@example.com", "password": strings.Repeat("x", maxPasswordBytes+1)}).want(t, 400, "password_too_long")
		r := root.do("POST", "/admin-api/users", map[string]any{"email": "p@example.com", "password": "long enough"}).want(t, 201)
		if _, ok := r.body["password"]; ok {
			t.Fatalf("create echoes the password: %s", r.raw)
		}
		for _, a := range e.auditRows("create") {
			if strings.Contains(fmt.Sprint(a.Payload), "long enough") || strings.Contains(fmt.Sprint(a.Payload), "argon2id") {
				t.Fatalf("audit holds the password or its hash: %v", a.Payload)
			}
		}
		e.login("P@Example.com", "long enough")
		// Without a password the built-in (nullable) column stays NULL.
		id := root.do("POST", "/admin-api/users", map[string]any{"email": "q@example.com"}).want(t, 201).body["id"]
		var h *string
		if err := e.db.NewSelect().Table("game_users").Column("password_hash").Where("id = ?", id).Scan(context.Background(), &h); err != nil || h != nil {
			t.Fatalf("password_hash = %v, %v; want NULL", h, err)
		}
	})
}

// untaggedAccount is a game's model that leaves NOT NULL and defaults to
// the game's own SQL migrations: the panel reads them from the database.
type untaggedAccount struct {
	bun.BaseModel `bun:"table:accounts,alias:acc"`

	ID           string   `bun:"id,pk"`
	Mail         string   `bun:"mail"`
	Passhash     string   `bun:"passhash"`
	TokenVersion int64    `bun:"token_version"`
	Ban          *BanInfo `bun:"ban"`
}

// TestAdoptReadsTheDatabase: the id's database default and the password
// column's NOT NULL count though the model does not tag them: ids are the
// game's, and a user created without a password is locked, not refused.
func TestAdoptReadsTheDatabase(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		idDefault, ban := "('acc_' || md5(random()::text))", "JSONB"
		if db.Dialect().Name().String() == "sqlite" {
			idDefault, ban = "('acc_' || lower(hex(randomblob(8))))", "TEXT"
		}
		if _, err := db.ExecContext(ctx, `CREATE TABLE accounts (
	id TEXT PRIMARY KEY DEFAULT `+idDefault+`,
	mail TEXT NOT NULL,
	passhash TEXT NOT NULL,
	token_version BIGINT NOT NULL DEFAULT 0,
	ban `+ban+`)`); err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, Options{Tables: map[string]any{"users": (*untaggedAccount)(nil)}, UserColumns: accountColumns,
			PasswordHasher: Bcrypt{Cost: bcrypt.MinCost}})
		root := e.client()
		id, _ := root.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "Root@Studio.Example", "password": "correct horse"}).want(t, 201).body["userId"].(string)
		if !strings.HasPrefix(id, "acc_") {
			t.Fatalf("bootstrap id = %q; want the database default's acc_…", id)
		}
		gameCheck(t, db, id, "correct horse")
		r := root.do("POST", "/admin-api/users", map[string]any{"mail": "Invited@Example.com"}).want(t, 201)
		invited, _ := r.body["id"].(string)
		if !strings.HasPrefix(invited, "acc_") || storedHash(t, db, invited) != unusableHash {
			t.Fatalf("created without a password: %s, hash %q; want an acc_ id and %q", r.raw, storedHash(t, db, invited), unusableHash)
		}
		made := root.do("POST", "/admin-api/users", map[string]any{"mail": "Made@Example.com", "password": "made password"}).want(t, 201).body["id"].(string)
		gameCheck(t, db, made, "made password")
	})
}

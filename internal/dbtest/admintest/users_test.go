package admintest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"
)

func TestUsersTableWithoutOptionalColumns(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.NewCreateTable().Model((*Player)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		tables := BuiltinTables()
		tables["users"] = (*Player)(nil)
		got := make(chan ResetRequest, 1)
		e := newEnv(t, db, Options{Tables: tables, OnResetRequest: func(_ context.Context, r ResetRequest) error { got <- r; return nil }})
		id := e.user("p@example.com", "player password")
		if id != "1" {
			t.Fatalf("created id = %q; want 1", id)
		}
		c := e.login("p@example.com", "player password")
		if r := c.do("GET", "/admin-api/auth/me", nil).want(t, 200); r.body["userId"] != "1" || r.body["displayName"] != "" {
			t.Fatalf("me = %s", r.raw)
		}
		c.do("POST", "/admin-api/auth/logout-everywhere", nil).want(t, 501, "unsupported")
		if err := e.admin.Auth().Ban(ctx, id, BanInfo{}); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Ban = %v; want ErrUnsupported", err)
		}
		if err := e.admin.Auth().BumpTokenVersion(ctx, id); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("BumpTokenVersion = %v; want ErrUnsupported", err)
		}
		// Reset tokens stay single-use: they are bound to the old hash.
		e.client().do("POST", "/admin-api/auth/request-reset", map[string]any{"email": "p@example.com"}).want(t, 200)
		req := <-got
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "new password"}).want(t, 200)
		e.client().do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "newer password"}).want(t, 400, "invalid_token")
		e.login("p@example.com", "new password")
	})
}

func TestUsersTableMustHaveSignInColumns(t *testing.T) {
	t.Parallel()
	type NoPassword struct {
		ID    int64  `bun:"id,pk"`
		Email string `bun:"email"`
	}
	db := testdb.SQLite(t)
	tables := BuiltinTables()
	tables["users"] = (*NoPassword)(nil)
	if _, err := New(db, Options{Secret: testSecret, Tables: tables}); err == nil || !strings.Contains(err.Error(), "password_hash") {
		t.Fatalf("New with a users table without password_hash = %v; want an error naming it", err)
	}
}

// TestUserListColumns: the users list leads with what names a user
// (email, display name) and ends with the id, for the built-in table and
// an adopted one; the password hash is never listed.
func TestUserListColumns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts Options
		want []string
	}{
		{"builtin", Options{}, []string{"email", "display_name", "ban", "created_at", "id"}},
		{"adopted", Options{
			Tables:      map[string]any{"users": (*bigintPlayer)(nil)},
			UserColumns: UserColumns{PasswordHash: "pw_hash", DisplayName: "nickname", Ban: "banned", TokenVersion: "gen"},
		}, []string{"email", "nickname", "banned", "id"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *bun.DB) {
				createTables(t, db, (*bigintPlayer)(nil))
				e := newEnv(t, db, tt.opts)
				c, _ := e.bootstrap()
				got, form := "no users resource", ""
				for _, en := range rows(t, c.do("GET", "/admin-api", nil).want(t, 200)) {
					if en["name"] == "users" {
						got, form = fmt.Sprint(en["listColumns"]), fmt.Sprint(en["formFields"])
					}
				}
				if got != fmt.Sprint(tt.want) {
					t.Errorf("users listColumns = %s; want %v", got, tt.want)
				}
				// Nobody types a token version or a hash: neither is a field.
				if strings.Contains(form, "token_version") || strings.Contains(form, " gen") || strings.Contains(form, "pw_hash") || strings.Contains(form, "password_hash") || !strings.Contains(form, "email") {
					t.Errorf("users formFields = %s; want no token version or hash", form)
				}
			})
		})
	}
}

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
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
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
		r := root.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": " Root@Studio.Example ", "password": "correct horse", "token": e.setupToken()}).want(t, 201)
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
			for deadline := time.Now().Add(30 * time.Second); !audited() && time.Now().Before(deadline); {
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
		ddl := `CREATE TABLE accounts (
	id TEXT PRIMARY KEY DEFAULT ` + idDefault + `,
	mail TEXT NOT NULL,
	passhash TEXT NOT NULL,
	token_version BIGINT NOT NULL DEFAULT 0,
	ban ` + ban + `)`
		if db.Dialect().Name().String() == "mysql" {
			ddl = "CREATE TABLE accounts (\n" +
				"	`id` VARCHAR(64) NOT NULL DEFAULT (CONCAT('acc_', MD5(RAND()))) PRIMARY KEY,\n" +
				"	`mail` VARCHAR(255) NOT NULL,\n" +
				"	`passhash` VARCHAR(255) NOT NULL,\n" +
				"	`token_version` BIGINT NOT NULL DEFAULT 0,\n" +
				"	`ban` JSON) DEFAULT CHARSET=utf8mb4"
		}
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, db, Options{Tables: map[string]any{"users": (*untaggedAccount)(nil)}, UserColumns: accountColumns,
			PasswordHasher: Bcrypt{Cost: bcrypt.MinCost}})
		root := e.client()
		id, _ := root.do("POST", "/admin-api/auth/bootstrap", map[string]any{"email": "Root@Studio.Example", "password": "correct horse", "token": e.setupToken()}).want(t, 201).body["userId"].(string)
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

// TestBannedFilter: ban_null=false lists the banned users only (the UI's
// "Banned" filter).
func TestBannedFilter(t *testing.T) {
	t.Parallel()
	eachEnv(t, Options{}, func(t *testing.T, e *env) {
		c, _ := e.bootstrap()
		bad := e.user("bad@example.com", "password bad")
		e.user("good@example.com", "password good")
		c.do("POST", "/admin-api/users/"+bad+"/ban", map[string]any{"reason": "spam"}).want(t, 200)
		got, _ := c.list(t, "/admin-api/users", url.Values{"ban_null": {"false"}})
		if ids := column(got, "id"); len(ids) != 1 || ids[0] != bad {
			t.Fatalf("ban_null=false = %v; want only %s", ids, bad)
		}
	})
}

type bigintPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       int64    `bun:"id,pk,autoincrement"`
	Email    string   `bun:"email,notnull,unique"`
	Nickname string   `bun:"nickname"`
	PwHash   string   `bun:"pw_hash"`
	Banned   *BanInfo `bun:"banned"`
	Gen      int64    `bun:"gen,notnull,default:0"`
}

type uuidPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       uuid.UUID `bun:"player_id,pk,type:uuid"`
	Email    string    `bun:"email,notnull,unique"`
	Nickname string    `bun:"nickname"`
	PwHash   string    `bun:"pw_hash"`
	Banned   *BanInfo  `bun:"banned"`
	Gen      int64     `bun:"gen,notnull,default:0"`
}

type textPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       string   `bun:"handle,pk"`
	Email    string   `bun:"email,notnull,unique"`
	Nickname string   `bun:"nickname"`
	PwHash   string   `bun:"pw_hash"`
	Banned   *BanInfo `bun:"banned"`
	Gen      int64    `bun:"gen,notnull,default:0"`
}

type bigintItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64  `bun:"id,pk,autoincrement"`
	OwnerID int64  `bun:"owner_id,notnull"`
	Name    string `bun:"name,notnull"`
}

type uuidItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64     `bun:"id,pk,autoincrement"`
	OwnerID uuid.UUID `bun:"owner_id,notnull,type:uuid"`
	Name    string    `bun:"name,notnull"`
}

type textItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64  `bun:"id,pk,autoincrement"`
	OwnerID string `bun:"owner_id,notnull"`
	Name    string `bun:"name,notnull"`
}

// sessionRooms is a Rooms with one live session per user it was told
// about, which records the user ids the panel asks for.
type sessionRooms struct {
	farRooms
	mu    sync.Mutex
	live  map[string]bool
	asked []string
}

func (s *sessionRooms) UserSessions(_ context.Context, userID string) ([]UserSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, userID)
	if s.live[userID] {
		return []UserSession{{SessionID: "s-" + userID, RoomID: "lobby"}}, nil
	}
	return nil, nil
}

func (s *sessionRooms) DisconnectUser(_ context.Context, userID string, _ LeaveReason, _ string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live[userID] {
		delete(s.live, userID)
		return 1, nil
	}
	return 0, nil
}

// TestHTTPSurfaceByUserIDType runs the panel's whole user-facing HTTP
// surface over a game users table whose ids are bigint, uuid or text, on
// both databases: the built-in tables take the users id type, and no
// comparison of user ids answers 500 (PostgreSQL's "text = bigint").
func TestHTTPSurfaceByUserIDType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		model any
		item  any
		idCol string
		bogus string // an id no user has, malformed for the type where it can be
		// bogusStatus and bogusCode answer a path naming bogus: 400 when
		// it is malformed, else 404.
		bogusStatus int
		bogusCode   string
	}{
		{"bigint", (*bigintPlayer)(nil), (*bigintItem)(nil), "id", "not-a-number", 400, "invalid_value"},
		{"uuid", (*uuidPlayer)(nil), (*uuidItem)(nil), "player_id", "not-a-uuid", 400, "invalid_value"},
		{"text", (*textPlayer)(nil), (*textItem)(nil), "handle", "nobody", 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *bun.DB) {
				createTables(t, db, tt.model, tt.item)
				rooms := &sessionRooms{live: map[string]bool{}}
				e := newEnv(t, db, Options{
					Tables: tablesWith(map[string]any{"users": tt.model, "items": tt.item}),
					Relations: map[string][]Relation{
						"items": {{Name: "owner", Target: "users", Kind: One, FK: "owner_id"}},
						"users": {{Name: "items", Target: "items", Kind: Many, FK: "owner_id"}},
					},
					UserColumns: UserColumns{ID: tt.idCol, PasswordHash: "pw_hash", DisplayName: "nickname", Ban: "banned", TokenVersion: "gen"},
					Rooms:       rooms,
				})
				t.Cleanup(func() {
					if t.Failed() {
						t.Log(e.logs.String())
					}
				})
				root, rootID := e.bootstrap()
				pid := e.user("p@example.com", "player password")
				rooms.live[pid] = true
				id := func(v any) string { return fmt.Sprint(v) }

				// Catalog, list, read.
				cat := rows(t, root.do("GET", "/admin-api/", nil).want(t, 200))
				if len(cat) == 0 || cat[0]["name"] != "users" || fmt.Sprint(cat[0]["primaryKey"]) != "["+tt.idCol+"]" {
					t.Fatalf("catalog = %v; want the users resource keyed by %s", cat, tt.idCol)
				}
				users, _ := root.list(t, "/admin-api/users", url.Values{"_sort": {tt.idCol}})
				if got := column(users, tt.idCol); !slices.Contains(got, rootID) || !slices.Contains(got, pid) {
					t.Fatalf("GET /users ids = %v; want %s and %s", got, rootID, pid)
				}
				u := root.do("GET", "/admin-api/users/"+pid, nil).want(t, 200).body
				if u["email"] != "p@example.com" || id(u[tt.idCol]) != pid {
					t.Fatalf("GET /users/%s = %v", pid, u)
				}
				if _, ok := u["pw_hash"]; ok {
					t.Fatalf("GET /users/%s shows the password hash: %v", pid, u)
				}
				root.do("GET", "/admin-api/users/"+tt.bogus, nil).want(t, tt.bogusStatus, tt.bogusCode)
				found, _ := root.list(t, "/admin-api/users", url.Values{tt.idCol: {pid}})
				if len(found) != 1 {
					t.Fatalf("GET /users?%s=%s = %v; want one row", tt.idCol, pid, found)
				}
				if r := root.do("GET", "/admin-api/users?"+tt.idCol+"="+tt.bogus, nil); r.StatusCode != 200 && r.StatusCode != 400 {
					t.Fatalf("GET /users?%s=%s = %d %s; want 200 or 400", tt.idCol, tt.bogus, r.StatusCode, r.raw)
				}
				search, _ := root.list(t, "/admin-api/users", url.Values{"_q": {"p@example"}})
				if len(search) != 1 {
					t.Fatalf("GET /users?_q=p@example = %v; want one row", search)
				}

				// Rows that refer to the player, created through the panel
				// with the id as the list shows it (a JSON number for bigint).
				pidJSON := users[slices.Index(column(users, tt.idCol), pid)][tt.idCol]
				note := root.do("POST", "/admin-api/userNotes", map[string]any{"user_id": pidJSON, "body": "hello"}).want(t, 201).body
				root.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": pid, "slot": "a"}).want(t, 201)
				root.do("POST", "/admin-api/leaderboards", map[string]any{"id": "weekly", "name": "Weekly"}).want(t, 201)
				root.do("POST", "/admin-api/leaderboardEntries", map[string]any{"leaderboard_id": "weekly", "user_id": pidJSON, "score": 7}).want(t, 201)
				root.do("POST", "/admin-api/analyticsEvents", map[string]any{"user_id": pid, "name": "login"}).want(t, 201)
				item := root.do("POST", "/admin-api/items", map[string]any{"owner_id": pidJSON, "name": "sword"}).want(t, 201).body
				bad := root.do("POST", "/admin-api/cloudSaves", map[string]any{"user_id": tt.bogus, "slot": "b"}).want(t, 400)
				if tt.bogusStatus == 400 && !contains(fmt.Sprint(bad.body["error"]), map[string]string{"bigint": "must be a whole number", "uuid": "must be an id like"}[tt.name]) {
					// The column is a Go string; the message says what
					// the database takes.
					t.Errorf("POST /cloudSaves with user_id %q: %s; want the message to name the %s column", tt.bogus, bad.raw, tt.name)
				}
				root.do("POST", "/admin-api/userNotes", map[string]any{"user_id": tt.bogus, "body": "x"}).want(t, 400)

				counts := root.do("GET", "/admin-api/users/"+pid+"/_counts", nil).want(t, 200).body
				for _, k := range []string{"userNotes", "cloudSaves", "leaderboardEntries", "analyticsEvents", "items", "activeSessions"} {
					if counts[k] != float64(1) {
						t.Errorf("GET /users/%s/_counts = %v; want %s 1", pid, counts, k)
					}
				}
				if !slices.Contains(rooms.asked, pid) {
					t.Errorf("Rooms.UserSessions asked for %q; want %s", rooms.asked, pid)
				}
				root.do("GET", "/admin-api/users/"+tt.bogus+"/_counts", nil).want(t, tt.bogusStatus, tt.bogusCode)
				for _, rel := range []string{"userNotes", "cloudSaves", "leaderboardEntries", "analyticsEvents", "items"} {
					rows, _ := root.list(t, "/admin-api/users/"+pid+"/relations/"+rel, nil)
					if len(rows) != 1 || id(cmp.Or(rows[0]["user_id"], rows[0]["owner_id"])) != pid {
						t.Errorf("GET /users/%s/relations/%s = %v; want the player's row", pid, rel, rows)
					}
				}
				noteID := id(note["id"])
				for rel, want := range map[string]string{"user": pid, "author": rootID} {
					rows, _ := root.list(t, "/admin-api/userNotes/"+noteID+"/relations/"+rel, nil)
					if len(rows) != 1 || id(rows[0][tt.idCol]) != want {
						t.Errorf("GET /userNotes/%s/relations/%s = %v; want user %s", noteID, rel, rows, want)
					}
				}

				owner, _ := root.list(t, "/admin-api/items/"+id(item["id"])+"/relations/owner", nil)
				if len(owner) != 1 || id(owner[0][tt.idCol]) != pid {
					t.Errorf("GET /items/%v/relations/owner = %v; want the player", item["id"], owner)
				}

				// Labels name a user by its display name (UserColumns.DisplayName),
				// else its email.
				root.do("PATCH", "/admin-api/users/"+rootID, map[string]any{"nickname": "Root"}).want(t, 200)
				notes, _ := root.list(t, "/admin-api/userNotes", nil)
				if len(notes) != 1 || labels(notes[0])["user_id"] != "p@example.com" || labels(notes[0])["author_id"] != "Root" {
					t.Errorf("GET /userNotes labels = %v", notes)
				}
				items, _ := root.list(t, "/admin-api/items", url.Values{"owner_id": {pid}})
				if len(items) != 1 || labels(items[0])["owner_id"] != "p@example.com" {
					t.Errorf("GET /items?owner_id=%s = %v; want the sword labelled with its owner", pid, items)
				}
				filtered, _ := root.list(t, "/admin-api/userNotes", url.Values{"user_id": {pid}})
				if len(filtered) != 1 {
					t.Errorf("GET /userNotes?user_id=%s = %v; want the note", pid, filtered)
				}

				// Role changes through the roles resource; the player signs in
				// and its session reads its role.
				root.do("POST", "/admin-api/roles", map[string]any{"user_id": pidJSON, "role": "mod", "scopes": []string{"userNotes"}}).want(t, 201)
				root.do("GET", "/admin-api/roles/"+pid, nil).want(t, 200)
				player := e.login("p@example.com", "player password")
				me := player.do("GET", "/admin-api/auth/me", nil).want(t, 200).body
				if me["userId"] != pid || me["role"] != "mod" {
					t.Fatalf("GET /auth/me as the player = %v; want mod %s", me, pid)
				}
				root.do("PATCH", "/admin-api/roles/"+pid, map[string]any{"role": "user"}).want(t, 200)
				if me := player.do("GET", "/admin-api/auth/me", nil).want(t, 200).body; me["role"] != "user" {
					t.Fatalf("GET /auth/me after the role change = %v; want user", me)
				}
				root.do("GET", "/admin-api/roles/"+tt.bogus, nil).want(t, tt.bogusStatus, tt.bogusCode)

				// Moderation.
				ban := root.do("POST", "/admin-api/users/"+pid+"/ban", map[string]any{"reason": "cheating"}).want(t, 200).body
				if ban["sessionsClosed"] != float64(1) {
					t.Errorf("ban = %v; want one session closed", ban)
				}
				player.do("GET", "/admin-api/auth/me", nil).want(t, 401)
				e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "p@example.com", "password": "player password"}).want(t, 403)
				root.do("POST", "/admin-api/users/"+pid+"/unban", nil).want(t, 200)
				player = e.login("p@example.com", "player password")
				root.do("POST", "/admin-api/users/"+pid+"/revoke-sessions", nil).want(t, 200)
				player.do("GET", "/admin-api/auth/me", nil).want(t, 401)
				for _, op := range []string{"ban", "unban", "revoke-sessions"} {
					root.do("POST", "/admin-api/users/"+tt.bogus+"/"+op, nil).want(t, tt.bogusStatus, tt.bogusCode)
				}

				// Audit filters by actor and target.
				byActor, _ := root.list(t, "/admin-api/adminAudit", url.Values{"operator_id": {rootID}})
				byTarget, _ := root.list(t, "/admin-api/adminAudit", url.Values{"target_id": {pid}, "resource": {"users"}})
				if len(byActor) == 0 || !slices.Contains(column(byTarget, "action"), "user.ban") || !slices.Contains(column(byTarget, "action"), "user.unban") {
					t.Errorf("audit by operator = %d rows, by target = %v; want rows and the ban and unban", len(byActor), column(byTarget, "action"))
				}
				if len(byActor) > 0 && labels(byActor[0])["operator_id"] != "Root" {
					t.Errorf("audit operator label = %v", labels(byActor[0]))
				}
				if r := root.do("GET", "/admin-api/adminAudit?operator_id="+tt.bogus, nil); r.StatusCode != 200 && r.StatusCode != 400 {
					t.Fatalf("GET /adminAudit?operator_id=%s = %d %s; want 200 or 400", tt.bogus, r.StatusCode, r.raw)
				}
				root.list(t, "/admin-api/adminAudit", url.Values{"_q": {pid}})

				// Deleting the player takes its rows along.
				root.do("DELETE", "/admin-api/users/"+pid, nil).want(t, 200)
				if n := count(t, db, (*UserNote)(nil)); n != 0 {
					t.Errorf("%d notes left after deleting their user", n)
				}
			})
		})
	}
}

// textOwnedItem refers to a bigint player from a text column, as a game's
// older table might.
type textOwnedItem struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	ID      int64  `bun:"id,pk,autoincrement"`
	OwnerID string `bun:"owner_id"`
	Name    string `bun:"name,notnull"`
}

// TestRelationKeyTypesDiffer: a relation whose two columns have different
// types (a text owner_id naming a bigint player) works both ways on both
// databases: the key takes the type of the column it is compared with.
func TestRelationKeyTypesDiffer(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*bigintPlayer)(nil), (*textOwnedItem)(nil))
		e := newEnv(t, db, Options{
			Tables:      tablesWith(map[string]any{"users": (*bigintPlayer)(nil), "items": (*textOwnedItem)(nil)}),
			UserColumns: UserColumns{PasswordHash: "pw_hash", DisplayName: "nickname", Ban: "banned", TokenVersion: "gen"},
			Relations: map[string][]Relation{
				"items": {{Name: "owner", Target: "users", Kind: One, FK: "owner_id"}},
				"users": {{Name: "items", Target: "items", Kind: Many, FK: "owner_id"}},
			},
		})
		root, rootID := e.bootstrap()
		insert(t, db, &[]textOwnedItem{{OwnerID: rootID, Name: "sword"}, {OwnerID: "not-a-player", Name: "junk"}, {Name: "orphan"}})
		if got := root.do("GET", "/admin-api/users/"+rootID+"/_counts", nil).want(t, 200).body; got["items"] != float64(1) {
			t.Fatalf("GET /users/%s/_counts = %v; want items 1", rootID, got)
		}
		items, _ := root.list(t, "/admin-api/users/"+rootID+"/relations/items", nil)
		if len(items) != 1 || items[0]["name"] != "sword" {
			t.Fatalf("GET /users/%s/relations/items = %v; want the sword", rootID, items)
		}
		all, _ := root.list(t, "/admin-api/items", url.Values{"_sort": {"id"}})
		if len(all) != 3 || labels(all[0])["owner_id"] != "root@example.com" || labels(all[1]) != nil {
			t.Fatalf("GET /items = %v; want the sword labelled by its owner, the others not", all)
		}
		for i, want := range []int{1, 0, 0} {
			owner, _ := root.list(t, fmt.Sprintf("/admin-api/items/%v/relations/owner", all[i]["id"]), nil)
			if len(owner) != want {
				t.Errorf("GET /items/%v/relations/owner = %v; want %d rows", all[i]["id"], owner, want)
			}
		}
	})
}

// TestOperatorEmailChangeEndsSessions: an admin may change a mod's email,
// and the sessions signed in under the old address end.
func TestOperatorEmailChangeEndsSessions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c := e.crew("users")
		c.modScoped.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		c.admin.do("PATCH", "/admin-api/users/"+c.modScopedID, map[string]any{"email": "mod2@example.com"}).want(t, 200)
		c.modScoped.do("GET", "/admin-api/auth/me", nil).want(t, 401)
		e.login("mod2@example.com", "mod password")

		// A plain user's email change does not sign them out (players keep
		// playing), and the admin's own change keeps its session.
		c.user.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		c.admin.do("PATCH", "/admin-api/users/"+c.userID, map[string]any{"email": "user2@example.com"}).want(t, 200)
		c.user.do("GET", "/admin-api/auth/me", nil).want(t, 200)
		c.admin.do("PATCH", "/admin-api/users/"+c.adminID, map[string]any{"email": "root2@example.com"}).want(t, 200)
		c.admin.do("GET", "/admin-api/auth/me", nil).want(t, 200)
	})
}

// TestUserEmailsValidated: every write path refuses what is not one bare
// address, so sign-in and reset never match on garbage.
func TestUserEmailsValidated(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		c := e.crew()
		for _, bad := range []any{"", "   ", "no-at-sign", "two@@example.com", "Name <x@example.com>", "a@b@c", 42, nil} {
			c.admin.do("PATCH", "/admin-api/users/"+c.userID, map[string]any{"email": bad}).want(t, 400)
			c.admin.do("POST", "/admin-api/users", map[string]any{"email": bad}).want(t, 400)
		}
		anon := e.client()
		anon.do("POST", "/admin-api/auth/login", map[string]any{"email": "Name <root@example.com>", "password": "correct horse"}).want(t, 400, "invalid_value")
		r := c.admin.do("POST", "/admin-api/users", map[string]any{"email": " Fresh@Example.com"}).want(t, 201)
		if r.body["email"] != "Fresh@Example.com" {
			t.Errorf("created email = %v; want Fresh@Example.com (trimmed, case kept)", r.body["email"])
		}
	})
}

// regionPlayer is a game's users table with a NOT NULL column of its own
// that has no database default.
type regionPlayer struct {
	bun.BaseModel `bun:"table:players,alias:p"`

	ID       int64  `bun:"id,pk,autoincrement"`
	Email    string `bun:"email,notnull,unique"`
	Nickname string `bun:"nickname,notnull"`
	PwHash   string `bun:"pw_hash"`
	Region   string `bun:"region,notnull"`
}

// TestInvite: an admin's invite hands OnResetRequest a reset link marked
// Invite, which sets the password; mods may not invite, and the answer
// never carries the link.
func TestInvite(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		got := make(chan ResetRequest, 2)
		e := newEnv(t, db, Options{OnResetRequest: func(_ context.Context, r ResetRequest) error { got <- r; return nil }})
		cr := e.crew("users")
		newOp := e.user("new-op@example.com", "temporary pw")

		cr.modScoped.do("POST", "/admin-api/users/"+newOp+"/invite", nil).want(t, 403, "forbidden")
		cr.admin.do("POST", "/admin-api/users/no-such-user/invite", nil).want(t, 404, "not_found")
		r := cr.admin.do("POST", "/admin-api/users/"+newOp+"/invite", nil).want(t, 200)
		if strings.Contains(string(r.raw), "token") {
			t.Fatalf("invite answered %s; the link must not be in the answer", r.raw)
		}
		var req ResetRequest
		select {
		case req = <-got:
		default:
			t.Fatal("OnResetRequest was not called")
		}
		if !req.Invite || req.UserID != newOp || req.Email != "new-op@example.com" || !strings.HasPrefix(req.URL, "/admin/reset?token=") {
			t.Fatalf("ResetRequest = %+v; want an invite for %s", req, newOp)
		}
		cr.anon.do("POST", "/admin-api/auth/reset", map[string]any{"token": req.Token, "password": "chosen password"}).want(t, 200)
		e.login("new-op@example.com", "chosen password")
		if a := e.auditRows("user.invite"); len(a) != 1 || a[0].TargetID != newOp || a[0].OperatorID != cr.adminID {
			t.Fatalf("user.invite audit = %+v", a)
		}
	})
}

// ciAccount is a game's users table whose email is PostgreSQL's citext,
// unique: its own index answers a case-insensitive lookup.
type ciAccount struct {
	bun.BaseModel `bun:"table:ci_accounts,alias:ca"`

	ID       string `bun:"id,pk"`
	Email    string `bun:"email,type:citext,notnull,unique"`
	PassHash string `bun:"pass_hash,notnull"`
}

// TestCitextEmail: on a citext email column, sign-in and the email-taken
// check match in any case through the column's unique index (lower() on
// both sides could not use it and read the whole table), and the exact
// spelling stored is kept.
func TestCitextEmail(t *testing.T) {
	t.Parallel()
	db := testdb.PGSearching(t, "public")
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public"); err != nil {
		var n int // a concurrent run may have just installed it
		if db.NewSelect().TableExpr("pg_extension").ColumnExpr("count(*)").Where("extname = 'citext'").Scan(ctx, &n) != nil || n == 0 {
			t.Fatalf("citext: %v", err)
		}
	}
	createTables(t, db, (*ciAccount)(nil))
	insert(t, db, &[]ciAccount{{ID: "acc_alice", Email: "Alice.Smith@Example.COM", PassHash: bcryptOf(t, "$2a$", "alice password")}})
	must(db.ExecContext(ctx, "INSERT INTO ci_accounts SELECT 'acc_' || i, 'player' || i || '@example.com', '!' FROM generate_series(1, 20000) i"))
	must(db.ExecContext(ctx, "ANALYZE ci_accounts"))

	var mu sync.Mutex
	var lookups []string
	db = db.WithQueryHook(queryHook(func(q string) {
		if strings.Contains(q, `"email"`) && strings.Contains(strings.ToLower(q), "alice.smith@example.com") {
			mu.Lock()
			lookups = append(lookups, q)
			mu.Unlock()
		}
	}))
	e := newEnv(t, db, Options{
		Tables:         map[string]any{"users": (*ciAccount)(nil)},
		UserColumns:    UserColumns{PasswordHash: "pass_hash"},
		PasswordHasher: Bcrypt{Cost: bcrypt.MinCost},
	})
	r := e.client().do("POST", "/admin-api/auth/login", map[string]any{"email": "ALICE.SMITH@example.com", "password": "alice password"}).want(t, 200)
	if r.body["userId"] != "acc_alice" {
		t.Fatalf("sign-in = %s; want acc_alice", r.raw)
	}
	root, _ := e.bootstrap()
	root.do("POST", "/admin-api/users", map[string]any{"id": "acc_x", "email": "alice.smith@EXAMPLE.com"}).want(t, 409, "conflict")

	mu.Lock()
	seen := slices.Clone(lookups) // EXPLAIN below runs the hook too
	mu.Unlock()
	if len(seen) < 2 {
		t.Fatalf("saw %d lookups of alice's email; want the sign-in's and the email-taken check's", len(seen))
	}
	for _, q := range seen {
		var plan []string
		must(0, db.NewRaw("EXPLAIN "+q).Scan(ctx, &plan))
		if p := strings.Join(plan, "\n"); strings.Contains(p, "Seq Scan on ci_accounts") {
			t.Errorf("the lookup reads the whole table:\n%s\n%s", q, p)
		}
	}
	var stored string
	must(0, db.NewSelect().Model((*ciAccount)(nil)).Column("email").Where("id = 'acc_alice'").Scan(ctx, &stored))
	if stored != "Alice.Smith@Example.COM" {
		t.Errorf("stored email = %q; want it as it was", stored)
	}
}

// queryHook calls fn with the text of every query Bun runs.
type queryHook func(query string)

func (h queryHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (h queryHook) AfterQuery(_ context.Context, ev *bun.QueryEvent)                   { h(ev.Query) }

// TestUpdateChangingNothing: a write to a users row that leaves its values
// as they were (unbanning a player never banned, twice) finds the row, on
// MariaDB too, whose UPDATE counts only the rows it changed; an unknown
// id is still not found.
func TestUpdateChangingNothing(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		root, _ := e.bootstrap()
		pid := e.user("calm@example.com", "player password")
		for range 2 {
			root.do("POST", "/admin-api/users/"+pid+"/unban", nil).want(t, 200)
		}
		root.do("POST", "/admin-api/users/"+uuid.Must(uuid.NewV7()).String()+"/unban", nil).want(t, 404, "not_found")
	})
}

// The runnable examples of package admin: each opens a throwaway SQLite
// database, which is why they live in this module (the library's own
// module requires no SQL driver). They are the snippets of README.md and
// docs/adopting.md, checked by their output.
package admintest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gameadmin/admin"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"golang.org/x/crypto/bcrypt"
	_ "modernc.org/sqlite"
)

// openExampleDB opens a throwaway SQLite database.
func openExampleDB() (*bun.DB, func()) {
	dir, err := os.MkdirTemp("", "admin-example")
	if err != nil {
		log.Fatal(err)
	}
	sqldb, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "game.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		log.Fatal(err)
	}
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

// newExampleAdmin is admin.New with a fixed secret and no logs.
func newExampleAdmin(db *bun.DB) *admin.Admin {
	a, err := admin.New(db, admin.Options{Secret: []byte("an example secret of at least 32 bytes"), Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	return a
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// Mount the panel on the game's mux and protect one of the game's own
// routes with the panel's session.
func Example_panel() {
	db, done := openExampleDB()
	defer done()

	a, err := admin.New(db, admin.Options{
		Secret: []byte("an example secret of at least 32 bytes"),
		// Without it, each start logs a one-time setup link instead.
		SetupToken: "the deployment's own setup token",
		Logger:     quiet,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()

	mux := http.NewServeMux()
	a.Mount(mux) // /admin-api/ and /admin/
	mux.Handle("/monitor", admin.Guard(admin.GuardOptions{Admin: a})(http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) {
			op, _ := admin.OperatorFrom(r.Context())
			fmt.Fprintf(w, "hello %s", op.Role)
		})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The first visit creates the first admin, with the setup token.
	res, err := http.Post(srv.URL+"/admin-api/auth/bootstrap", "application/json",
		strings.NewReader(`{"email":"root@example.com","password":"correct horse","token":"the deployment's own setup token"}`))
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println("bootstrap:", res.Status)

	req, _ := http.NewRequest("GET", srv.URL+"/monitor", nil)
	req.AddCookie(res.Cookies()[0])
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println("monitor:", string(body))

	res, _ = http.Get(srv.URL + "/monitor")
	res.Body.Close()
	fmt.Println("anonymous:", res.Status)
	// Output:
	// bootstrap: 201 Created
	// monitor: hello admin
	// anonymous: 401 Unauthorized
}

// Give a player moderator rights over two resources. Roles are read live,
// so the change applies on the player's next request.
func Example_assignMod() {
	db, done := openExampleDB()
	defer done()
	a := newExampleAdmin(db)
	defer a.Close()
	ctx := context.Background()

	player := &admin.User{Email: "helper@example.com"}
	if _, err := db.NewInsert().Model(player).Exec(ctx); err != nil {
		log.Fatal(err)
	}
	for _, key := range []string{"users", "userNotes"} {
		if err := a.Moderation().AssignMod(ctx, player.ID, key); err != nil {
			log.Fatal(err)
		}
	}
	canUpdate, err := a.Moderation().Can(ctx, player.ID, admin.OpUpdate, "users")
	if err != nil {
		log.Fatal(err)
	}
	canDelete, err := a.Moderation().Can(ctx, player.ID, admin.OpDelete, "users")
	if err != nil {
		log.Fatal(err)
	}
	op, err := a.Moderation().Role(ctx, player.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(op.Role, op.Scopes, canUpdate, canDelete)
	// Output: mod [users userNotes] true false
}

// Ban a player: the ban and the end of every session happen in one
// statement.
func Example_ban() {
	db, done := openExampleDB()
	defer done()
	a := newExampleAdmin(db)
	defer a.Close()
	ctx := context.Background()

	player := &admin.User{Email: "cheater@example.com"}
	if _, err := db.NewInsert().Model(player).Exec(ctx); err != nil {
		log.Fatal(err)
	}
	if err := a.Auth().Ban(ctx, player.ID, admin.BanInfo{Reason: "speed hack"}); err != nil {
		log.Fatal(err)
	}
	ban, err := a.Auth().Banned(ctx, player.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("banned:", ban.Reason)
	// Output: banned: speed hack
}

// File a player's report from the game's chat command: the category is
// one the game declares, the evidence the chat line; a second report of
// the same player by the same reporter soon after folds into the first.
func Example_fileReport() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{Secret: []byte("an example secret of at least 32 bytes"), Logger: quiet,
		ReportCategories: []admin.ReportCategory{
			{Key: "abuse", Label: "Abuse", Evidence: "text"},
			{Key: "cheating", Label: "Cheating"},
		}})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	reporter, player := &admin.User{Email: "victim@example.com"}, &admin.User{Email: "troll@example.com"}
	if _, err := db.NewInsert().Model(&[]*admin.User{reporter, player}).Exec(ctx); err != nil {
		log.Fatal(err)
	}
	line, _ := json.Marshal("you are all noobs")
	report := admin.Report{ReporterID: reporter.ID, PlayerID: player.ID, Category: "abuse", Text: "/report troll", RoomID: "arena-7", Evidence: line}
	first, err := a.FileReport(ctx, report)
	if err != nil {
		log.Fatal(err)
	}
	again, err := a.FileReport(ctx, report)
	if err != nil {
		log.Fatal(err)
	}
	_, err = a.FileReport(ctx, admin.Report{ReporterID: reporter.ID, PlayerID: player.ID, Category: "spam"})
	fmt.Println(first == again, errors.Is(err, admin.ErrUnknownCategory))
	// Output: true true
}

// Record what the game's own tools change, with a column-level diff.
func Example_recordUpdate() {
	db, done := openExampleDB()
	defer done()
	a := newExampleAdmin(db)
	defer a.Close()
	ctx := context.Background()

	err := a.Audit().RecordUpdate(ctx, admin.UpdateRecord{
		OperatorID: "ops-script", Resource: "configs", TargetID: "motd",
		Before: map[string]any{"key": "motd", "value": "Hello"},
		After:  map[string]any{"key": "motd", "value": "Season 2 is live"},
	})
	if err != nil {
		log.Fatal(err)
	}
	var e admin.AuditEntry
	if err := db.NewSelect().Model(&e).Where("action = 'update'").Scan(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Resource, e.TargetID, e.Payload["changes"])
	// Output: configs motd map[value:map[after:Season 2 is live before:Hello]]
}

// Make the game's own change and its audit entry one transaction: if the
// entry cannot be written, the change does not happen either.
func Example_recordTx() {
	db, done := openExampleDB()
	defer done()
	a := newExampleAdmin(db)
	defer a.Close()
	ctx := context.Background()

	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		motd := &admin.Config{Key: "motd", Value: []byte(`"Season 2 is live"`), UpdatedAt: time.Now()}
		if _, err := tx.NewInsert().Model(motd).Exec(ctx); err != nil {
			return err
		}
		return a.Audit().RecordTx(ctx, tx, admin.AuditEntry{
			OperatorID: "ops-script", Action: "create", Resource: "configs", TargetID: "motd",
			Payload: map[string]any{"row": map[string]any{"key": "motd"}},
		})
	})
	if err != nil {
		log.Fatal(err)
	}
	n, err := db.NewSelect().Model((*admin.AuditEntry)(nil)).Where("target_id = 'motd'").Count(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("entries:", n)
	// Output: entries: 1
}

// Bound the start-up work on the database: NewContext gives up when ctx
// ends (another node holding the migration lock, a database that does not
// answer) instead of waiting.
func Example_newContext() {
	db, done := openExampleDB()
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	a, err := admin.NewContext(ctx, db, admin.Options{Secret: []byte("an example secret of at least 32 bytes"), Logger: quiet})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	fmt.Println("ready")
	// Output: ready
}

// Require every operator to sign in with a second factor: until they enrol,
// operators reach only their account's enrolment endpoints.
func Example_requireTOTP() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret:      []byte("an example secret of at least 32 bytes"),
		Logger:      quiet,
		RequireTOTP: admin.TOTPOperators,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a)
	defer srv.Close()

	session := firstAdminSession(a, srv)
	get := func(path string) string {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.AddCookie(session)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return strings.TrimSpace(string(b))
	}
	fmt.Println(get("/admin-api/users"))
	fmt.Println(get("/admin-api/auth/totp"))
	// Output:
	// {"status":403,"code":"totp_enrollment_required","error":"set up two-factor sign-in on your account page first"}
	// {"enabled":false,"pending":false,"recoveryCodesLeft":0,"required":true}
}

// The game's own player sign-in goes through the panel's password check,
// with its limits and failure audit: AuthenticateFrom keys them on the
// client's address (a.ClientIP, which honours Options.TrustedProxies).
func Example_authenticateFrom() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret: []byte("an example secret of at least 32 bytes"),
		Logger: quiet,
		// Behind a load balancer at 10.0.0.0/8; loopback is trusted by default.
		TrustedProxies: append(admin.DefaultTrustedProxies(), netip.MustParsePrefix("10.0.0.0/8")),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	h, _ := a.Auth().HashPassword(ctx, "player password")
	db.NewInsert().Model(&admin.User{Email: "p@example.com", PasswordHash: h}).Exec(ctx)

	login := func(password string) error {
		r := httptest.NewRequest("POST", "/api/auth/login", nil)
		r.RemoteAddr = "10.1.2.3:4000" // the load balancer
		r.Header.Set("X-Forwarded-For", "198.51.100.7")
		_, err := a.Auth().AuthenticateFrom(r, "p@example.com", password)
		return err
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr, r.Header["X-Forwarded-For"] = "10.1.2.3:4000", []string{"198.51.100.7"}
	fmt.Println("client:", a.ClientIP(r))
	fmt.Println("right password:", login("player password"))
	for range 10 { // RateLimit.LoginFailuresPerNetwork: 10 from one /24
		login("guess")
	}
	err = login("player password")
	var limited *admin.RateLimitError
	fmt.Println("after 10 guesses:", errors.Is(err, admin.ErrRateLimited), errors.As(err, &limited) && limited.RetryAfter > 0)
	if errors.Is(err, admin.ErrRateLimited) {
		fmt.Println("answer:", http.StatusTooManyRequests)
	}
	// Output:
	// client: 198.51.100.7
	// right password: <nil>
	// after 10 guesses: true true
	// answer: 429
}

// A game whose own login checks bcrypt keeps it working: with Bcrypt,
// every hash the panel writes is one the game's code accepts, and sign-in
// matches the player's email in any case without rewriting it.
func Example_bcrypt() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret:         []byte("an example secret of at least 32 bytes"),
		Logger:         quiet,
		PasswordHasher: admin.Bcrypt{Cost: bcrypt.MinCost}, // the game's cost, 10 to 12 in production
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	h, _ := a.Auth().HashPassword(ctx, "player password")
	db.NewInsert().Model(&admin.User{Email: "Sam.Player@Example.com", PasswordHash: h}).Exec(ctx)

	id, err := a.Auth().Authenticate(ctx, "sam.player@example.com", "player password")
	fmt.Println("signed in:", err == nil)
	var u admin.User
	db.NewSelect().Model(&u).Where("id = ?", id).Scan(ctx)
	fmt.Println("email kept:", u.Email)
	fmt.Println("the game's bcrypt check:", bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte("player password")) == nil)
	// Output:
	// signed in: true
	// email kept: Sam.Player@Example.com
	// the game's bcrypt check: true
}

// firstAdminSession creates the first admin from Go, as a scripted
// deployment does, and returns the session cookie of its sign-in on srv.
func firstAdminSession(a *admin.Admin, srv *httptest.Server) *http.Cookie {
	if _, err := a.CreateFirstAdmin(context.Background(), "root@example.com", "correct horse", ""); err != nil {
		log.Fatal(err)
	}
	res, err := http.Post(srv.URL+"/admin-api/auth/login", "application/json",
		strings.NewReader(`{"email": "root@example.com", "password": "correct horse"}`))
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == "game_admin_session" {
			return c
		}
	}
	log.Fatalf("sign-in: %s, no session cookie", res.Status)
	return nil
}

// exampleClient signs in as the first admin on srv and returns a function
// that sends a JSON request with its session, answering the status line
// and the body.
func exampleClient(a *admin.Admin, srv *httptest.Server) func(method, path, body string) string {
	cookie := firstAdminSession(a, srv)
	return func(method, path, body string) string {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(cookie)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return fmt.Sprintf("%d %s", r.StatusCode, strings.TrimSpace(string(b)))
	}
}

// Give an enum-like column its values: the UI offers them in a select, and
// create and update refuse any other.
func Example_choices() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret: []byte("an example secret of at least 32 bytes"),
		Logger: quiet,
		Resources: map[string]*admin.Resource{
			"leaderboards": admin.DefineResource((*admin.Leaderboard)(nil), admin.ResourceConfig{
				Columns: map[string]admin.ColumnConfig{"sort_order": {Choices: []string{"asc", "desc"}}},
			}),
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a)
	defer srv.Close()
	do := exampleClient(a, srv)

	fmt.Println(do("POST", "/admin-api/leaderboards", `{"id": "weekly", "name": "Weekly", "sort_order": "up"}`))
	fmt.Println(do("POST", "/admin-api/leaderboards", `{"id": "weekly", "name": "Weekly", "sort_order": "asc"}`)[:3])
	// Output:
	// 400 {"status":400,"code":"invalid_value","error":"Sort Order: \"up\" is not one of the choices","fields":{"sort_order":"Sort Order: \"up\" is not one of the choices"},"problems":{"sort_order":{"code":"not_a_choice","params":{"value":"up"}}}}
	// 201
}

// An admin invites an operator created in the panel: the link to set a
// password goes to OnResetRequest, marked Invite.
func Example_invite() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret: []byte("an example secret of at least 32 bytes"),
		Logger: quiet,
		OnResetRequest: func(_ context.Context, req admin.ResetRequest) error {
			// Email https://game.example.com + req.URL to req.Email here.
			fmt.Println("invite:", req.Invite, req.Email, strings.HasPrefix(req.URL, "/admin/reset?token="))
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a)
	defer srv.Close()
	do := exampleClient(a, srv)

	created := do("POST", "/admin-api/users", `{"email": "new-mod@example.com", "display_name": "New Mod"}`)
	id := created[strings.Index(created, `"id":"`)+6:]
	id = id[:strings.IndexByte(id, '"')]
	fmt.Println(do("POST", "/admin-api/users/"+id+"/invite", ""))
	// Output:
	// invite: true new-mod@example.com true
	// 200 {"ok":true}
}

// Answer a player's request to be forgotten: say what the game's tables
// hold (cloud saves kept for a legal hold here), look at the dry run, then
// erase with the email typed back.
func Example_erase() {
	db, done := openExampleDB()
	defer done()
	a, err := admin.New(db, admin.Options{
		Secret: []byte("an example secret of at least 32 bytes"),
		Logger: quiet,
		Resources: map[string]*admin.Resource{
			"cloudSaves": admin.DefineResource((*admin.CloudSave)(nil), admin.ResourceConfig{Erase: admin.EraseKeep}),
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	player := &admin.User{Email: "forget.me@example.com"}
	if _, err := db.NewInsert().Model(player).Exec(ctx); err != nil {
		log.Fatal(err)
	}
	save := &admin.CloudSave{UserID: player.ID, Slot: "main", Version: 1, UpdatedAt: time.Now()}
	if _, err := db.NewInsert().Model(save).Exec(ctx); err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(a)
	defer srv.Close()
	session := firstAdminSession(a, srv)
	post := func(path, body string) string {
		req, _ := http.NewRequest("POST", srv.URL+"/admin-api/users/"+player.ID+path, strings.NewReader(body))
		req.AddCookie(session)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer res.Body.Close()
		var report struct {
			Resources []struct{ Relation, Rule string }
		}
		if err := json.NewDecoder(res.Body).Decode(&report); err != nil {
			log.Fatal(err)
		}
		out := res.Status
		for _, r := range report.Resources {
			if r.Relation == "cloudSaves" || r.Relation == "userNotes" {
				out += " " + r.Relation + ":" + r.Rule
			}
		}
		return out
	}
	fmt.Println("dry run:", post("/_erase?dryRun=true", ""))
	fmt.Println("erase:", post("/_erase", `{"confirm":"forget.me@example.com"}`))
	if _, err := a.Auth().UserIDByEmail(ctx, "forget.me@example.com"); errors.Is(err, admin.ErrNotFound) {
		fmt.Println("the email names nobody now")
	}
	// Output:
	// dry run: 200 OK cloudSaves:keep userNotes:delete
	// erase: 200 OK cloudSaves:keep userNotes:delete
	// the email names nobody now
}

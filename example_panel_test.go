package admin_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gameadmin/admin"
)

// exampleClient bootstraps the first admin on srv and returns a function
// that sends a JSON request with its session, answering the status line
// and the body.
func exampleClient(srv *httptest.Server) func(method, path, body string) string {
	res, err := http.Post(srv.URL+"/admin-api/auth/bootstrap", "application/json",
		strings.NewReader(`{"email": "root@example.com", "password": "correct horse"}`))
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	cookie := res.Cookies()[0]
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
func ExampleColumnConfig_choices() {
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
	do := exampleClient(srv)

	fmt.Println(do("POST", "/admin-api/leaderboards", `{"id": "weekly", "name": "Weekly", "sort_order": "up"}`))
	fmt.Println(do("POST", "/admin-api/leaderboards", `{"id": "weekly", "name": "Weekly", "sort_order": "asc"}`)[:3])
	// Output:
	// 400 {"status":400,"code":"invalid_value","error":"column \"sort_order\": \"up\" is not one of its choices","fields":{"sort_order":"column \"sort_order\": \"up\" is not one of its choices"}}
	// 201
}

// An admin invites an operator created in the panel: the link to set a
// password goes to OnResetRequest, marked Invite.
func ExampleResetRequest_invite() {
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
	do := exampleClient(srv)

	created := do("POST", "/admin-api/users", `{"email": "new-mod@example.com", "display_name": "New Mod"}`)
	id := created[strings.Index(created, `"id":"`)+6:]
	id = id[:strings.IndexByte(id, '"')]
	fmt.Println(do("POST", "/admin-api/users/"+id+"/invite", ""))
	// Output:
	// invite: true new-mod@example.com true
	// 200 {"ok":true}
}

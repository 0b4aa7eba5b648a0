package admintest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// TestFieldVisibility: a column with ReadRole admin is, for a mod, as if
// hidden wherever a value could leak: rows of the list, a read, a relation
// tab and the dashboard, the catalog, the OpenAPI document, the CSV
// export, labels, search, the history and the audit log; filtering or
// sorting on it is 403; an admin sees it everywhere.
func TestFieldVisibility(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{Resources: map[string]*Resource{
			"users": DefineResource((*User)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"email": {ReadRole: RoleAdmin}},
				List: ListConfig{Columns: []string{"email", "display_name"}, DefaultSort: Sort{Field: "email"}}}),
			// A game that lets mods read the audit log.
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod), Read: Roles(RoleAdmin, RoleMod)}}),
		}})
		cr := e.crew("users", "userNotes", "adminAudit")
		ctx := context.Background()
		secret := "Hidden.Person@example.com"
		who := e.user(secret, "password")
		cr.admin.do("PATCH", "/admin-api/users/"+who, map[string]any{"email": "hidden.person@example.com", "display_name": "Hidden Person"}).want(t, 200)
		must(0, e.admin.Audit().Record(ctx, AuditEntry{Action: "create", Resource: "users", TargetID: who, Payload: map[string]any{"row": map[string]any{"email": secret, "id": who}}}))
		insert(t, db, &[]UserNote{{UserID: who, AuthorID: cr.adminID, Body: "a note"}})
		mod, admin := cr.modScoped, cr.admin

		leaks := func(what string, raw []byte) {
			t.Helper()
			if s := strings.ToLower(string(raw)); strings.Contains(s, "hidden.person@example.com") || strings.Contains(s, `"email"`) {
				t.Errorf("the mod's %s shows the email: %s", what, raw)
			}
		}
		leaks("list", mod.do("GET", "/admin-api/users", nil).want(t, 200).raw)
		leaks("read", mod.do("GET", "/admin-api/users/"+who, nil).want(t, 200).raw)
		leaks("history", mod.do("GET", "/admin-api/users/"+who+"/_history", nil).want(t, 200).raw)
		leaks("dashboard", mod.do("GET", "/admin-api/_dashboard", nil).want(t, 200).raw)
		leaks("audit log", mod.do("GET", "/admin-api/adminAudit?resource=users", nil).want(t, 200).raw)
		notes := mod.do("GET", "/admin-api/userNotes", nil).want(t, 200)
		if !strings.Contains(string(notes.raw), "Hidden Person") {
			t.Errorf("the mod's notes label their user %s; want the display name", notes.raw)
		}
		leaks("notes' labels", notes.raw)
		var catalog []map[string]any
		for _, r := range rows(t, mod.do("GET", "/admin-api", nil).want(t, 200)) {
			if r["name"] == "users" {
				catalog = append(catalog, r)
			}
		}
		if len(catalog) != 1 || strings.Contains(fmt.Sprint(catalog[0]), "email") {
			t.Errorf("the mod's catalog of users = %v", catalog)
		}
		if doc := openAPIDoc(t, mod); doc.Components.Schemas["Users"].Value.Properties["email"] != nil {
			t.Error("the mod's OpenAPI document has the users' email")
		}
		res := mod.do("GET", "/admin-api/users/_export.csv", nil).want(t, 200)
		if csv := strings.ToLower(string(res.raw)); strings.Contains(csv, "email") || strings.Contains(csv, "hidden.person") {
			t.Errorf("the mod's CSV shows the email: %s", csv)
		}
		// Search does not look into it; filters and sorts on it are refused.
		if got, _ := mod.list(t, "/admin-api/users", url.Values{"_q": {"hidden.person@"}}); len(got) != 0 {
			t.Errorf("the mod's search by email found %v", got)
		}
		for _, q := range []string{"email_eq=x", "email=x", "email_like=hidden", "_sort=email", "_sort=id,email"} {
			mod.do("GET", "/admin-api/users?"+q, nil).want(t, 403, "forbidden")
		}
		mod.do("PATCH", "/admin-api/users/"+who, map[string]any{"email": "stolen@example.com"}).want(t, 400)
		// The admin sees all of it.
		if r := admin.do("GET", "/admin-api/users/"+who, nil).want(t, 200); r.body["email"] != "hidden.person@example.com" {
			t.Errorf("the admin's read = %v", r.body)
		}
		if got, _ := admin.list(t, "/admin-api/users", url.Values{"email_eq": {"hidden.person@example.com"}}); len(got) != 1 {
			t.Errorf("the admin's filter by email found %d", len(got))
		}
		if !strings.Contains(string(admin.do("GET", "/admin-api/users/"+who+"/_history", nil).want(t, 200).raw), "hidden.person@example.com") {
			t.Error("the admin's history lacks the email change")
		}
		_, err := New(testdb.SQLite(t), Options{Secret: testSecret, PasswordHasher: testHasher, Resources: map[string]*Resource{
			"users": DefineResource((*User)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"email": {ReadRole: "owner"}}}),
		}})
		if err == nil || !strings.Contains(err.Error(), "ReadRole") {
			t.Errorf("New with ReadRole owner = %v; want an error naming it", err)
		}
	})
}

// TestFieldMask: with a Mask, the roles below ReadRole see the column's
// values masked, everywhere they see rows (list, read, CSV, history),
// and still cannot filter, sort, search or write it.
func TestFieldMask(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{Resources: map[string]*Resource{
			"users": DefineResource((*User)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"email": {ReadRole: RoleAdmin, Mask: MaskEmail}}}),
		}})
		cr := e.crew("users")
		who := e.user("masked.person@example.com", "password")
		cr.admin.do("PATCH", "/admin-api/users/"+who, map[string]any{"email": "masked.again@example.com"}).want(t, 200)
		mod := cr.modScoped
		if r := mod.do("GET", "/admin-api/users/"+who, nil).want(t, 200); r.body["email"] != "m***@example.com" {
			t.Errorf("the mod's read = %v; want the email masked", r.body)
		}
		for what, raw := range map[string][]byte{
			"list":    mod.do("GET", "/admin-api/users", nil).want(t, 200).raw,
			"history": mod.do("GET", "/admin-api/users/"+who+"/_history", nil).want(t, 200).raw,
			"CSV":     mod.do("GET", "/admin-api/users/_export.csv", nil).want(t, 200).raw,
		} {
			if s := string(raw); strings.Contains(s, "masked.person") || strings.Contains(s, "masked.again") || !strings.Contains(s, "m***@example.com") {
				t.Errorf("the mod's %s: %s", what, s)
			}
		}
		for _, res := range rows(t, mod.do("GET", "/admin-api", nil).want(t, 200)) {
			if res["name"] != "users" {
				continue
			}
			for _, c := range res["columns"].([]any) {
				if c := c.(map[string]any); c["name"] == "email" && (c["masked"] != true || c["filterable"] != false || c["readOnly"] != true) {
					t.Errorf("the mod's catalog email column = %v", c)
				}
			}
		}
		if got, _ := mod.list(t, "/admin-api/users", url.Values{"_q": {"masked.again"}}); len(got) != 0 {
			t.Errorf("the mod's search by the masked email found %v", got)
		}
		mod.do("GET", "/admin-api/users?email_like=masked", nil).want(t, 403, "forbidden")
		mod.do("PATCH", "/admin-api/users/"+who, map[string]any{"email": "x@example.com"}).want(t, 403, "forbidden")
		if r := cr.admin.do("GET", "/admin-api/users/"+who, nil).want(t, 200); r.body["email"] != "masked.again@example.com" {
			t.Errorf("the admin's read = %v", r.body)
		}
		if MaskEmail("bob@example.com") != "b***@example.com" || MaskEmail("nonsense") != "***" || MaskEmail(7) != "***" {
			t.Error("MaskEmail")
		}
	})
}

// testSupportAccount is a game's support table: a PIN and a vault only
// an admin reads, and a recovery address mods see masked.
type testSupportAccount struct {
	bun.BaseModel `bun:"table:support_accounts,alias:sa"`

	ID            int64          `bun:"id,pk,autoincrement"`
	Handle        string         `bun:"handle,notnull"`
	SupportPin    string         `bun:"support_pin,notnull"`
	RecoveryEmail string         `bun:"recovery_email,notnull"`
	Vault         map[string]any `bun:"vault"`
}

// auditEntries are the audit log's entries of action (all when "") as c
// reads its list, by id, and the raw bodies of the list and of every
// read by id.
func auditEntries(t *testing.T, c *client, action string) (map[string]map[string]any, [][]byte) {
	t.Helper()
	q := url.Values{"_end": {"1000"}}
	if action != "" {
		q.Set("action", action)
	}
	list, r := c.list(t, "/admin-api/adminAudit", q)
	raws := [][]byte{r.raw}
	byID := map[string]map[string]any{}
	for _, row := range list {
		id := fmt.Sprint(row["id"])
		byID[id] = row
		read := c.do("GET", "/admin-api/adminAudit/"+id, nil).want(t, 200)
		if fmt.Sprint(read.body["payload"]) != fmt.Sprint(row["payload"]) {
			t.Errorf("entry %s read by id has payload %v; the list shows %v", id, read.body["payload"], row["payload"])
		}
		raws = append(raws, read.raw)
	}
	return byID, raws
}

// TestAuditExportQueryIsProjected: an export's entry records the
// exporter's query string; a mod who may read the audit log reads it as
// they read the rows it selected. Every spelling of a filter on a column
// they may not read (hidden for them, masked, a JSON column's key), the
// _q that searched such a column, and the audit log's own payload
// filter and _q (which finds users by their restricted email) read
// "[redacted]" in the log's list, each entry read by id and the log's
// CSV; names, sorts and the other filters stay, and the admin reads the
// query as it was sent.
func TestAuditExportQueryIsProjected(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testSupportAccount)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"accounts": (*testSupportAccount)(nil)}), Resources: map[string]*Resource{
			"accounts": DefineResource((*testSupportAccount)(nil), ResourceConfig{Columns: map[string]ColumnConfig{
				"support_pin":    {ReadRole: RoleAdmin},
				"vault":          {ReadRole: RoleAdmin},
				"recovery_email": {ReadRole: RoleAdmin, Mask: MaskEmail},
			}}),
			"users": DefineResource((*User)(nil), ResourceConfig{Columns: map[string]ColumnConfig{"email": {ReadRole: RoleAdmin, Mask: MaskEmail}}}),
			// A game that lets mods read the audit log.
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod), Read: Roles(RoleAdmin, RoleMod)}}),
		}})
		cr := e.crew("accounts", "users")
		acct := &testSupportAccount{Handle: "alice", SupportPin: "PIN-5519-NX", RecoveryEmail: "alice.recovery@example.com", Vault: map[string]any{"code": "PIN-5519-NX"}}
		insert(t, db, acct)
		secrets := []string{"PIN-5519", "5519-NX", "alice.recovery", "player.one"}
		e.user("player.one@example.com", "player password")

		// The admin's exports, each query as sent and as the mod reads it.
		exports := []struct{ resource, query, mod string }{
			{"accounts", "support_pin=PIN-5519-NX", "support_pin=[redacted]"},
			{"accounts", "support_pin_eq=PIN-5519-NX&handle=alice", "support_pin_eq=[redacted]&handle=alice"},
			{"accounts", "support_pin_like=5519-NX", "support_pin_like=[redacted]"},
			{"accounts", "support_pin_in=PIN-5519-NX,PIN-0000-AA", "support_pin_in=[redacted]"},
			{"accounts", "support_pin_ne=PIN-5519-NX", "support_pin_ne=[redacted]"},
			{"accounts", "support%5Fpin=PIN-5519-NX", "support%5Fpin=[redacted]"},
			{"accounts", "vault_key=code:PIN-5519-NX", "vault_key=[redacted]"},
			{"accounts", "vault_like=5519-NX", "vault_like=[redacted]"},
			{"accounts", "recovery_email_eq=alice.recovery@example.com", "recovery_email_eq=[redacted]"},
			{"accounts", "_q=5519-NX", "_q=[redacted]"},
			{"accounts", "_sort=support_pin&handle_like=ali&_headers=labels", "_sort=support_pin&handle_like=ali&_headers=labels"},
			{"adminAudit", "payload_like=5519-NX", "payload_like=[redacted]"},
			{"adminAudit", "_q=player.one@example.com", "_q=[redacted]"},
			{"adminAudit", "action=export&_sort=created_at", "action=export&_sort=created_at"},
		}
		for _, x := range exports {
			cr.admin.do("GET", "/admin-api/"+x.resource+"/_export.csv?"+x.query, nil).want(t, 200)
		}
		// A change of the PIN, in the row's history.
		cr.admin.do("PATCH", fmt.Sprintf("/admin-api/accounts/%d", acct.ID), map[string]any{"support_pin": "PIN-5519-NY"}).want(t, 200)

		entries := e.auditRows("export")
		if len(entries) != len(exports) {
			t.Fatalf("%d export entries; want %d", len(entries), len(exports))
		}
		modEntries, raws := auditEntries(t, cr.modScoped, "export")
		adminEntries, _ := auditEntries(t, cr.admin, "export")
		for i, x := range exports {
			id := fmt.Sprint(entries[i].ID)
			if got, _ := entries[i].Payload["query"].(string); got != x.query {
				t.Fatalf("export %d recorded query %q; want %q", i, got, x.query)
			}
			p, _ := modEntries[id]["payload"].(map[string]any)
			if p["query"] != x.mod || p["rows"] == nil {
				t.Errorf("the mod reads the export of %s?%s as %v; want query %q and its rows", x.resource, x.query, p, x.mod)
			}
			if p, _ := adminEntries[id]["payload"].(map[string]any); p["query"] != x.query {
				t.Errorf("the admin reads the export of %s?%s as %v; want the query as sent", x.resource, x.query, p)
			}
		}
		csv := cr.modScoped.do("GET", "/admin-api/adminAudit/_export.csv?action=export", nil).want(t, 200)
		if !strings.Contains(string(csv.raw), "support_pin_in=[redacted]") {
			t.Errorf("the mod's CSV of the audit log lacks the export entries: %s", csv.raw)
		}
		raws = append(raws, csv.raw,
			cr.modScoped.do("GET", fmt.Sprintf("/admin-api/accounts/%d/_history", acct.ID), nil).want(t, 200).raw)
		for _, raw := range raws {
			noSecret(t, "the mod's audit log", raw, secrets...)
		}
		// The mod cannot look for the values by filtering the payloads.
		cr.modScoped.do("GET", "/admin-api/adminAudit?payload_like=5519", nil).want(t, 403, "forbidden")
	})
}

// TestAuditOutOfScopeEntries: a mod who may read the audit log reads
// nothing of a resource outside their scopes in it, as its catalog,
// OpenAPI document and search show nothing of it: the entries about it
// (create, update, custom action, export, delete) keep who, what, when,
// the resource and the row's id, and their payloads only say they were
// redacted — in the list, read by id, the log's CSV and the dashboard's
// recent moderation (a mod without users in their scopes reads a ban's
// entry without its reason). Filtering the payloads is refused, though
// no column is restricted. A mod with the resource in scope, and the
// admin, read the entries whole.
func TestAuditOutOfScopeEntries(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGadget)(nil))
		const secret, reason = "GADGET-SECRET-7781", "duped gold, ticket 4420"
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"gadgets": (*testGadget)(nil)}), Resources: map[string]*Resource{
			"gadgets": DefineResource((*testGadget)(nil), ResourceConfig{Actions: []Action{{Name: "stamp", PerRow: true,
				Handler: func(_ context.Context, row map[string]any, _ ActionContext) (any, error) {
					return map[string]any{"stamped": row["secret"]}, nil
				}}}}),
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod), Read: Roles(RoleAdmin, RoleMod)}}),
		}})
		cr := e.crew("users")
		gadgetMod := e.user("gadget.mod@example.com", "mod password")
		must(0, e.admin.Moderation().AssignMod(context.Background(), gadgetMod, "gadgets"))
		gadgets := e.login("gadget.mod@example.com", "mod password")

		id := fmt.Sprint(cr.admin.do("POST", "/admin-api/gadgets", map[string]any{"name": "vault door", "secret": secret}).want(t, 201).body["id"])
		cr.admin.do("PATCH", "/admin-api/gadgets/"+id, map[string]any{"note": "opened with " + secret}).want(t, 200)
		cr.admin.do("POST", "/admin-api/gadgets/_action/stamp", map[string]any{"id": id, "code": secret}).want(t, 200)
		cr.admin.do("GET", "/admin-api/gadgets/_export.csv?secret="+secret, nil).want(t, 200)
		cr.admin.do("DELETE", "/admin-api/gadgets/"+id, nil).want(t, 200)
		player := e.user("player@example.com", "player password")
		cr.admin.do("POST", "/admin-api/users/"+player+"/ban", map[string]any{"reason": reason}).want(t, 200)

		// The mod scoped to users: the gadgets' entries are there, their
		// payloads redacted; the ban, about users, is whole.
		mod := cr.modScoped
		entries, raws := auditEntries(t, mod, "")
		seen := map[string]bool{}
		for _, row := range entries {
			if row["resource"] == "users" && row["action"] == "user.ban" {
				if p, _ := row["payload"].(map[string]any); p["reason"] != reason {
					t.Errorf("the users mod reads the ban as %v; want its reason", row)
				}
				continue
			}
			if row["resource"] != "gadgets" {
				continue
			}
			seen[fmt.Sprint(row["action"])] = true
			p, _ := row["payload"].(map[string]any)
			if len(p) != 1 || p["_redacted"] == nil || row["operator_id"] != cr.adminID {
				t.Errorf("the users mod reads the gadgets entry %v; want who and what, its payload redacted", row)
			}
			if row["action"] != "export" && fmt.Sprint(row["target_id"]) != id {
				t.Errorf("the users mod reads the gadgets entry %v without its target %s", row, id)
			}
		}
		if want := []string{"create", "custom", "delete", "export", "update"}; fmt.Sprint(slices.Sorted(maps.Keys(seen))) != fmt.Sprint(want) {
			t.Errorf("the users mod reads the gadgets entries %v; want %v", slices.Sorted(maps.Keys(seen)), want)
		}
		csv := mod.do("GET", "/admin-api/adminAudit/_export.csv?resource=gadgets", nil).want(t, 200).raw
		if !strings.Contains(string(csv), "_redacted") {
			t.Errorf("the users mod's CSV of the gadgets entries: %s; want them, redacted", csv)
		}
		for _, raw := range append(raws, csv) {
			noSecret(t, "the users mod's audit log", raw, secret, "vault door")
		}
		mod.do("GET", "/admin-api/adminAudit?payload_like=7781", nil).want(t, 403, "forbidden")
		mod.do("GET", "/admin-api/adminAudit?_sort=payload", nil).want(t, 403, "forbidden")

		// The dashboard: a mod without users reads the ban redacted, the
		// users mod with its reason.
		recent := func(c *client) []byte {
			t.Helper()
			var page struct {
				Widgets []struct {
					ID   string          `json:"id"`
					Data json.RawMessage `json:"data"`
				} `json:"widgets"`
			}
			if err := json.Unmarshal(c.do("GET", "/admin-api/_dashboard", nil).want(t, 200).raw, &page); err != nil {
				t.Fatal(err)
			}
			for _, w := range page.Widgets {
				if w.ID == "recentModeration" {
					return w.Data
				}
			}
			t.Fatal("no recentModeration widget")
			return nil
		}
		if bare := recent(cr.modBare); !strings.Contains(string(bare), "user.ban") || !strings.Contains(string(bare), "_redacted") {
			t.Errorf("the bare mod's recent moderation = %s; want the ban, redacted", bare)
		} else {
			noSecret(t, "the bare mod's recent moderation", bare, reason)
		}
		if scoped := recent(mod); !strings.Contains(string(scoped), reason) {
			t.Errorf("the users mod's recent moderation = %s; want the ban's reason", scoped)
		}

		// The gadgets mod and the admin read the gadgets entries whole.
		for who, c := range map[string]*client{"gadgets mod": gadgets, "admin": cr.admin} {
			r := c.do("GET", "/admin-api/adminAudit?resource=gadgets&action=export", nil).want(t, 200)
			if !strings.Contains(string(r.raw), "secret="+secret) {
				t.Errorf("the %s reads the export as %s; want its query", who, r.raw)
			}
		}
		if got, _ := cr.admin.list(t, "/admin-api/adminAudit", url.Values{"payload_like": {"7781"}}); len(got) < 5 {
			t.Errorf("the admin's payload filter found %d entries; want the gadgets' five", len(got))
		}
	})
}

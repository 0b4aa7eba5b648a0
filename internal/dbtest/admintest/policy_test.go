package admintest

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/gameadmin/admin"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// policyTables are four keys on one custom table, each with another policy.
var policyTables = map[string]any{
	"guilds":  (*testGuild)(nil), // no policy: the standard rule
	"locked":  (*testGuild)(nil), // Delete: Deny()
	"modlist": (*testGuild)(nil), // List: admin and any mod
	"open":    (*testGuild)(nil), // Create: Everyone()
}

var policyResources = map[string]*Resource{
	"locked":  DefineResource((*testGuild)(nil), ResourceConfig{Policies: Policies{Delete: Deny()}}),
	"modlist": DefineResource((*testGuild)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod)}}),
	"open":    DefineResource((*testGuild)(nil), ResourceConfig{Policies: Policies{Create: Everyone()}}),
}

// policyScopes are the scopes of the scoped mod: every key of the matrix,
// roles and adminAudit included (the core rule and the policies still
// block those).
var policyScopes = []string{"guilds", "locked", "modlist", "open", "roles", "adminAudit"}

// policyCase is one resource's row of the matrix: the operations each role
// may perform, as letters of LRCUD (list, read, create, update, delete).
type policyCase struct {
	resource                        string
	admin, modScoped, modBare, user string
}

// policyMatrixPlayersCanRead is the matrix with Options.PlayersCanRead,
// where a plain user may list and read.
var policyMatrixPlayersCanRead = []policyCase{
	{"guilds", "LRCUD", "LRU", "", "LR"},
	{"locked", "LRCU", "LRU", "", "LR"},
	{"modlist", "LRCUD", "LRU", "L", "R"},
	{"open", "LRCUD", "LRCU", "C", "LRC"},
	{"roles", "LRCUD", "", "", "LR"},
	{"adminAudit", "LR", "", "", ""},
}

// policyMatrix is the default one: without PlayersCanRead a plain user
// gets nothing, Everyone() included.
var policyMatrix = []policyCase{
	{"guilds", "LRCUD", "LRU", "", ""},
	{"modlist", "LRCUD", "LRU", "L", ""},
	{"open", "LRCUD", "LRCU", "C", ""},
	{"roles", "LRCUD", "", "", ""},
}

var opLetters = []struct {
	letter string
	op     Op
	method string
	ok     int
}{
	{"L", OpList, "GET", 200},
	{"R", OpRead, "GET", 200},
	{"C", OpCreate, "POST", 201},
	{"U", OpUpdate, "PATCH", 200},
	{"D", OpDelete, "DELETE", 200},
}

// policyRow makes a fresh row of resource for one cell and returns its id.
func policyRow(t *testing.T, db *bun.DB, resource string, n int) string {
	t.Helper()
	switch resource {
	case "roles":
		// The users the row and the create body name: roles.user_id
		// references the users table.
		id := fmt.Sprintf("ghost-%d", n)
		insert(t, db, &[]User{{ID: id, Email: id + "@example.com"}, {ID: fmt.Sprintf("new-%d", n), Email: fmt.Sprintf("new-%d@example.com", n)}})
		insert(t, db, &RoleAssignment{UserID: id, Role: RoleUser, Scopes: []string{}})
		return id
	case "adminAudit":
		row := &AuditEntry{Action: "seed", Resource: "x"}
		insert(t, db, row)
		return strconv.FormatInt(row.ID, 10)
	}
	row := &testGuild{Name: fmt.Sprintf("seed-%d", n)}
	insert(t, db, row)
	return strconv.FormatInt(row.ID, 10)
}

// policyBodies are a valid create and update body for resource.
func policyBodies(resource string, n int) (create, update map[string]any) {
	switch resource {
	case "roles":
		return map[string]any{"user_id": fmt.Sprintf("new-%d", n), "role": "user", "scopes": []string{}}, map[string]any{"role": "mod"}
	case "adminAudit":
		return map[string]any{"action": "forged", "resource": "x"}, map[string]any{"action": "forged"}
	}
	return map[string]any{"name": fmt.Sprintf("new-%d", n)}, map[string]any{"name": fmt.Sprintf("renamed-%d", n)}
}

func policyModel(resource string) any {
	switch resource {
	case "roles":
		return (*RoleAssignment)(nil)
	case "adminAudit":
		return (*AuditEntry)(nil)
	}
	return (*testGuild)(nil)
}

// runMatrix performs every operation of every case as every role.
func runMatrix(t *testing.T, e *env, c crew, matrix []policyCase) {
	n := 0
	for _, pc := range matrix {
		who := []struct {
			name    string
			cl      *client
			allowed string
			anon    bool
		}{
			{"admin", c.admin, pc.admin, false},
			{"mod with scope", c.modScoped, pc.modScoped, false},
			{"mod without scope", c.modBare, pc.modBare, false},
			{"user", c.user, pc.user, false},
			{"anonymous", c.anon, "", true},
		}
		for _, w := range who {
			for _, o := range opLetters {
				n++
				name := fmt.Sprintf("%s/%s/%s", pc.resource, w.name, o.op)
				t.Run(name, func(t *testing.T) {
					id := policyRow(t, e.db, pc.resource, n)
					create, update := policyBodies(pc.resource, n)
					path := "/admin-api/" + pc.resource
					var body any
					switch o.op {
					case OpRead, OpDelete:
						path += "/" + id
					case OpUpdate:
						path += "/" + id
						body = update
					case OpCreate:
						body = create
					}
					want := 403
					switch {
					case w.anon:
						want = 401
					case strings.Contains(w.allowed, o.letter):
						want = o.ok
					}
					before := count(t, e.db, policyModel(pc.resource))
					r := w.cl.do(o.method, path, body)
					if r.StatusCode != want {
						t.Fatalf("%s %s as %s = %d %s; want %d", o.method, path, w.name, r.StatusCode, r.raw, want)
					}
					if want >= 400 {
						r.want(t, want, map[int]string{401: "unauthenticated", 403: "forbidden"}[want])
						if after := count(t, e.db, policyModel(pc.resource)); after != before && pc.resource != "adminAudit" {
							t.Fatalf("%s %s refused but rows went from %d to %d", o.method, path, before, after)
						}
					}
				})
			}
		}
	}
}

// TestPolicyMatrix is the permission rules over HTTP: (role, scope,
// policy, operation) -> status.
func TestPolicyMatrix(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGuild)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(policyTables), Resources: policyResources, PlayersCanRead: true})
		c := e.crew(policyScopes...)
		runMatrix(t, e, c, policyMatrixPlayersCanRead)
		// Refused writes on the audit log wrote nothing but audit rows of
		// their own kind: no forged entry exists.
		if n := must(db.NewSelect().Model((*AuditEntry)(nil)).Where("action = 'forged'").Count(context.Background())); n != 0 {
			t.Fatalf("forged audit rows = %d; want 0", n)
		}
	})
}

// TestPolicyMatrixDefault is the matrix without PlayersCanRead.
func TestPolicyMatrixDefault(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGuild)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(policyTables), Resources: policyResources})
		c := e.crew(policyScopes...)
		runMatrix(t, e, c, policyMatrix)
	})
}

// TestCatalogPermissions: the catalog is for operators, lists what each may
// list or read, and its permissions match the matrix.
func TestCatalogPermissions(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		createTables(t, db, (*testGuild)(nil))
		e := newEnv(t, db, Options{Tables: tablesWith(policyTables), Resources: policyResources})
		c := e.crew(policyScopes...)
		c.anon.do("GET", "/admin-api", nil).want(t, 401, "unauthenticated")
		c.anon.do("GET", "/admin-api/", nil).want(t, 401, "unauthenticated")
		c.user.do("GET", "/admin-api", nil).want(t, 403, "forbidden")

		ops := []struct {
			name    string
			cl      *client
			allowed func(policyCase) string
		}{
			{"admin", c.admin, func(p policyCase) string { return p.admin }},
			{"mod with scope", c.modScoped, func(p policyCase) string { return p.modScoped }},
			{"mod without scope", c.modBare, func(p policyCase) string { return p.modBare }},
		}
		for _, o := range ops {
			t.Run(o.name, func(t *testing.T) {
				r := o.cl.do("GET", "/admin-api", nil).want(t, 200)
				got := rows(t, r)
				byName := map[string]map[string]any{}
				var names []string
				for _, entry := range got {
					byName[entry["name"].(string)] = entry
					names = append(names, entry["name"].(string))
				}
				var want []string
				// Every resource's row; an operator's columns are the
				// same with PlayersCanRead as without.
				for _, pc := range policyMatrixPlayersCanRead {
					allowed := o.allowed(pc)
					entry, listed := byName[pc.resource]
					visible := strings.ContainsAny(allowed, "LR")
					if listed != visible {
						t.Fatalf("GET /admin-api as %s lists %s = %v; want %v (names %v)", o.name, pc.resource, listed, visible, names)
					}
					if !listed {
						continue
					}
					want = append(want, pc.resource)
					perms := entry["permissions"].(map[string]any)
					for _, l := range opLetters {
						if w := strings.Contains(allowed, l.letter); perms[string(l.op)] != w {
							t.Errorf("catalog %s as %s: permissions.%s = %v; want %v", pc.resource, o.name, l.op, perms[string(l.op)], w)
						}
					}
				}
				if o.name != "admin" {
					// A mod sees only what its scopes and the policies open to it.
					slices.Sort(names)
					slices.Sort(want)
					if !slices.Equal(names, want) {
						t.Fatalf("catalog as %s = %v; want %v", o.name, names, want)
					}
				} else if len(names) != len(BuiltinTables())+len(policyTables) {
					t.Fatalf("catalog as admin = %v; want every built-in and custom key", names)
				}
			})
		}
		c.admin.do("GET", "/admin-api/ghost", nil).want(t, 404, "unknown_resource")
		c.admin.do("GET", "/admin-api/ghost/1", nil).want(t, 404, "unknown_resource")
		c.admin.do("POST", "/admin-api/ghost", map[string]any{"name": "x"}).want(t, 404, "unknown_resource")
	})
}

// TestOverridingBuiltinPolicies: a game's Policies for a built-in resource
// replace only the operations they set; the audit log stays append-only.
func TestOverridingBuiltinPolicies(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{Resources: map[string]*Resource{
			"adminAudit": DefineResource((*AuditEntry)(nil), ResourceConfig{Policies: Policies{List: Roles(RoleAdmin, RoleMod)}}),
		}})
		c := e.crew()
		id := policyRow(t, db, "adminAudit", 1)
		c.modBare.do("GET", "/admin-api/adminAudit", nil).want(t, 200)
		c.modBare.do("GET", "/admin-api/adminAudit/"+id, nil).want(t, 403, "forbidden")
		c.user.do("GET", "/admin-api/adminAudit/"+id, nil).want(t, 403, "forbidden")
		c.admin.do("POST", "/admin-api/adminAudit", map[string]any{"action": "forged", "resource": "x"}).want(t, 403, "forbidden")
		c.admin.do("PATCH", "/admin-api/adminAudit/"+id, map[string]any{"action": "forged"}).want(t, 403, "forbidden")
		c.admin.do("DELETE", "/admin-api/adminAudit/"+id, nil).want(t, 403, "forbidden")
	})
}

// TestWarnsWhenPlayersCanRead: New says, once, that accounts without a
// panel role can read the panel while PlayersCanRead is on; operators
// alone, or PlayersCanRead off (the default), say nothing.
func TestWarnsWhenPlayersCanRead(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		e := newEnv(t, db, Options{})
		e.bootstrap()
		start := func(opts Options) string {
			logs := &syncBuffer{}
			opts.Secret, opts.PasswordHasher, opts.Logger = testSecret, testHasher, slog.New(slog.NewTextHandler(logs, nil))
			a, err := New(db, opts)
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
			return logs.String()
		}
		const warning = "PlayersCanRead is on"
		if l := start(Options{PlayersCanRead: true}); strings.Contains(l, warning) {
			t.Fatalf("warned with only an admin in the table:\n%s", l)
		}
		e.user("player@example.com", "player password")
		if l := start(Options{PlayersCanRead: true}); strings.Count(l, warning) != 1 {
			t.Fatalf("no single warning with a player in the table:\n%s", l)
		}
		if l := start(Options{}); strings.Contains(l, warning) {
			t.Fatalf("warned with PlayersCanRead off:\n%s", l)
		}
	})
}

// TestPlayersReachNothingByDefault: a plain user (a player who signs in)
// gets 403 from every resource endpoint by default: list, read, the CSV
// export, _counts, relations and a custom action whose Roles are empty,
// on a game table and on the users table (other players' emails). With
// PlayersCanRead the seed's behaviour is back, 200, except the export,
// which stays an operator's tool.
func TestPlayersReachNothingByDefault(t *testing.T) {
	t.Parallel()
	for _, open := range []bool{false, true} {
		t.Run(fmt.Sprintf("PlayersCanRead=%v", open), func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *bun.DB) {
				createTables(t, db, (*testGuild)(nil), (*testMember)(nil))
				var calls atomic.Int64
				e := newEnv(t, db, Options{
					PlayersCanRead: open,
					Tables:         tablesWith(map[string]any{"guilds": (*testGuild)(nil), "members": (*testMember)(nil)}),
					Relations:      map[string][]Relation{"guilds": {{Name: "members", Target: "members", Kind: Many, FK: "GuildID"}}},
					Resources: map[string]*Resource{"guilds": DefineResource((*testGuild)(nil), ResourceConfig{
						Actions: []Action{{Name: "report", Handler: func(context.Context, map[string]any, ActionContext) (any, error) {
							calls.Add(1)
							return nil, nil
						}}},
					})},
				})
				c := e.crew()
				g := &testGuild{Name: "Knights", OwnerID: c.adminID}
				insert(t, db, g)
				insert(t, db, &testMember{GuildID: g.ID, Title: "squire"})
				gid := strconv.FormatInt(g.ID, 10)
				want := 403
				if open {
					want = 200
				}
				for _, r := range []struct{ method, path string }{
					{"GET", "/admin-api/guilds"},
					{"GET", "/admin-api/guilds/" + gid},
					{"GET", "/admin-api/guilds/" + gid + "/_counts"},
					{"GET", "/admin-api/guilds/" + gid + "/relations/members"},
					{"POST", "/admin-api/guilds/_action/report"},
					{"GET", "/admin-api/users"},
					{"GET", "/admin-api/users/" + c.adminID},
				} {
					res := c.user.do(r.method, r.path, nil)
					if want == 403 {
						res.want(t, 403, "forbidden")
					} else {
						res.want(t, 200)
					}
				}
				c.user.do("GET", "/admin-api/guilds/_export.csv", nil).want(t, 403, "forbidden")
				c.user.do("GET", "/admin-api", nil).want(t, 403, "forbidden")
				if n, ran := calls.Load(), int64(map[bool]int{false: 0, true: 1}[open]); n != ran {
					t.Fatalf("the action ran %d times; want %d", n, ran)
				}
				// The operators keep what they had.
				c.admin.do("GET", "/admin-api/guilds/"+gid+"/relations/members", nil).want(t, 200)
				c.admin.do("GET", "/admin-api/guilds/_export.csv", nil).want(t, 200)
			})
		})
	}
}

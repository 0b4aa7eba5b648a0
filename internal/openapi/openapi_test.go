package openapi

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/catalog"
	"github.com/gameadmin/admin/internal/schema"
)

// TestColumnSchema: a column's JSON Schema names each type once (JSON
// Schema 2020-12 wants type's items unique), describes a database array
// as an array of its elements (or the stored text of one that is not
// one-dimensional), and is readOnly exactly when the catalog
// says so (a key with a default may still be given on create).
func TestColumnSchema(t *testing.T) {
	for _, tt := range []struct {
		name string
		col  catalog.Column
		want string
	}{
		{"nullable json", catalog.Column{DataType: schema.JSON, Kind: schema.KindJSON},
			`{"type":["object","array","string","number","boolean","null"]}`},
		{"nullable text[]", catalog.Column{DataType: schema.String, Kind: schema.KindArray, Elem: schema.KindText},
			`{"items":{"type":["string","null"]},"type":["array","string","null"]}`},
		{"int[] not null", catalog.Column{DataType: schema.String, Kind: schema.KindArray, Elem: schema.KindNumber, NotNull: true},
			`{"items":{"type":["number","string","null"]},"type":["array","string"]}`},
		{"uuid key with a default", catalog.Column{DataType: schema.String, Kind: schema.KindUUID, Primary: true, HasDefault: true, NotNull: true},
			`{"type":"string"}`},
		{"identity key", catalog.Column{DataType: schema.Integer, Kind: schema.KindNumber, Primary: true, HasDefault: true, NotNull: true, ReadOnly: true},
			`{"readOnly":true,"type":["integer","string"]}`},
	} {
		got, err := json.Marshal(columnSchema(tt.col))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: %s; want %s", tt.name, got, tt.want)
		}
	}
}

// TestBuild: the document has the paths of what the input says the
// operator may do, and no others.
func TestBuild(t *testing.T) {
	doc := Build(Input{
		Operator: authz.Operator{UserID: "7", Role: authz.RoleMod},
		Catalog: []catalog.Entry{{
			Name: "items", Label: "Items",
			Columns:     []catalog.Column{{Name: "id", DataType: schema.Integer, Kind: schema.KindNumber, NotNull: true, Primary: true}, {Name: "name", DataType: schema.String, Kind: schema.KindText, NotNull: true, Required: true}},
			Actions:     []catalog.Action{{Name: "grant", Label: "Grant"}},
			Permissions: map[authz.Op]bool{authz.OpList: true, authz.OpRead: true, authz.OpUpdate: true},
		}},
		APIPath: "/admin-api", CookieName: "gameadmin_session",
		Users: true, Rooms: true, RoomPermissions: map[authz.Op]bool{authz.OpList: true},
		MaxReasonLen: 500, MaxBulkIDs: 1000,
	})
	paths := doc["paths"].(obj)
	for p, want := range map[string]bool{
		"/items": true, "/items/_export.csv": true, "/items/{id}": true, "/items/_action/grant": true,
		"/items/{id}/_history": false, "/items/{id}/_revert": false, // no audit log
		"/users/{id}/ban": false, "/users/_bulk/{op}": false, // may not update users
		"/users/{id}/_export": false, // admins only
		"/rooms":              true, "/rooms/{roomId}/state": false,
	} {
		if _, got := paths[p]; got != want {
			t.Errorf("path %s: %v; want %v", p, got, want)
		}
	}
	if _, ok := paths["/items"].(obj)["post"]; ok {
		t.Error("POST /items without OpCreate")
	}
	if _, ok := paths["/rooms/{roomId}"].(obj)["patch"]; ok {
		t.Error("PATCH a room without OpUpdate on rooms")
	}
	if got := doc["servers"].([]obj)[0]["url"]; got != "/admin-api" {
		t.Errorf("server %v", got)
	}
	scheme := doc["components"].(obj)["securitySchemes"].(obj)["session"].(obj)
	if scheme["name"] != "gameadmin_session" {
		t.Errorf("security scheme %v", scheme)
	}
	if req := doc["components"].(obj)["schemas"].(obj)["ItemsNew"].(obj)["required"]; !slices.Equal(req.([]string), []string{"name"}) {
		t.Errorf("ItemsNew required %v", req)
	}
}

// TestBuildReports: the reports paths are there only when the game
// declares categories and the operator may list users; claim and
// resolve only for an operator who may update users.
func TestBuildReports(t *testing.T) {
	for _, tt := range []struct {
		name              string
		cats              []string
		list, moderate    bool
		queue, claimPaths bool
	}{
		{"reports off", nil, true, true, false, false},
		{"no users list", []string{"abuse"}, false, false, false, false},
		{"list only", []string{"abuse"}, true, false, true, false},
		{"moderator", []string{"abuse"}, true, true, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := Build(Input{Operator: authz.Operator{UserID: "7", Role: authz.RoleMod}, APIPath: "/admin-api", Users: true,
				ReportCategories: tt.cats, ListUsers: tt.list, ModerateUsers: tt.moderate, MaxReasonLen: 500})
			paths := doc["paths"].(obj)
			for p, want := range map[string]bool{"/_reports": tt.queue, "/_reports/{playerId}/claim": tt.claimPaths, "/_reports/{playerId}/resolve": tt.claimPaths} {
				if _, got := paths[p]; got != want {
					t.Errorf("path %s: %v; want %v", p, got, want)
				}
			}
		})
	}
}

// TestUIDocument: the UI's document has the generic resource paths and
// every fixed part, and its answers are schemas, not bare objects.
func TestUIDocument(t *testing.T) {
	doc := UIDocument()
	paths := doc["paths"].(obj)
	for _, p := range []string{"/{resource}", "/{resource}/{id}", "/{resource}/{id}/_history", "/{resource}/{id}/relations/{relation}",
		"/{resource}/_action/{action}", "/users/{id}/ban", "/users/_bulk/{op}", "/_reports", "/_reports/{playerId}/resolve", "/rooms/{roomId}/state", "/auth/me"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("no path %s", p)
		}
	}
	me := paths["/auth/me"].(obj)["get"].(obj)["responses"].(obj)["200"].(obj)["content"].(obj)["application/json"].(obj)["schema"]
	if got := me.(obj)["$ref"]; got != "#/components/schemas/Me" {
		t.Errorf("/auth/me answers %v; want the Me schema", me)
	}
	col := doc["components"].(obj)["schemas"].(obj)["Column"].(obj)["properties"].(obj)
	for _, f := range []string{"masked", "unix", "kind", "scale"} {
		if _, ok := col[f]; !ok {
			t.Errorf("Column has no %s", f)
		}
	}
}

package admintest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/gameadmin/admin"
	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/uptrace/bun"
)

// sdGuild is a game's soft-delete model, as Bun's docs write one.
type sdGuild struct {
	bun.BaseModel `bun:"table:sd_guilds,alias:g"`
	ID            int64     `bun:"id,pk,autoincrement"`
	Name          string    `bun:"name,notnull"`
	DeletedAt     time.Time `bun:",soft_delete,nullzero"`
}

// names are the guild names of a list, sorted.
func names(list []map[string]any) []string {
	var out []string
	for _, r := range list {
		out = append(out, fmt.Sprint(r["name"]))
	}
	slices.Sort(out)
	return out
}

// TestSoftDelete: a soft-delete model's row is deleted softly (kept, its
// deleted_at set), the list leaves it out unless _deleted asks, its page
// still reads, restore and a revert of the delete bring it back, and each
// is audited.
func TestSoftDelete(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		createTables(t, db, (*sdGuild)(nil))
		insert(t, db, &[]sdGuild{{Name: "alpha"}, {Name: "beta"}, {Name: "gamma"}})
		// One the game itself soft-deleted.
		must(db.NewDelete().Model((*sdGuild)(nil)).Where("name = ?", "gamma").Exec(ctx))
		e := newEnv(t, db, Options{Tables: tablesWith(map[string]any{"guilds": (*sdGuild)(nil)})})
		c, _ := e.bootstrap()
		if en := catalogEntry(t, c, "guilds"); en["softDeleteColumn"] != "deleted_at" {
			t.Fatalf("catalog softDeleteColumn = %v", en["softDeleteColumn"])
		}
		list := func(q url.Values) []string {
			t.Helper()
			l, _ := c.list(t, "/admin-api/guilds", q)
			return names(l)
		}
		if got := fmt.Sprint(list(nil)); got != "[alpha beta]" {
			t.Fatalf("default list = %s; want the live rows", got)
		}
		var alpha sdGuild
		must(0, db.NewSelect().Model(&alpha).Where("name = ?", "alpha").Scan(ctx))
		id := fmt.Sprint(alpha.ID)
		del := c.do("DELETE", "/admin-api/guilds/"+id, nil).want(t, 200)
		if del.body["deleted_at"] == nil {
			t.Fatalf("DELETE answer = %s; want the row with deleted_at set", del.raw)
		}
		var kept sdGuild
		must(0, db.NewSelect().Model(&kept).WhereAllWithDeleted().Where("id = ?", alpha.ID).Scan(ctx))
		if kept.DeletedAt.IsZero() {
			t.Fatal("the row is gone or its deleted_at unset: the delete was not soft")
		}
		if en := e.auditRows("delete"); len(en) != 1 || en[0].Payload["soft"] != true {
			t.Fatalf("delete audit = %+v; want one marked soft", en)
		}
		if got := fmt.Sprint(list(nil)); got != "[beta]" {
			t.Fatalf("default list after delete = %s", got)
		}
		if got := fmt.Sprint(list(url.Values{"_deleted": {"only"}})); got != "[alpha gamma]" {
			t.Fatalf("_deleted=only = %s", got)
		}
		_, r := c.list(t, "/admin-api/guilds", url.Values{"_deleted": {"include"}, "_count": {"exact"}})
		if got := fmt.Sprint(list(url.Values{"_deleted": {"include"}})); got != "[alpha beta gamma]" || r.Header.Get("X-Total-Count") != "3" {
			t.Fatalf("_deleted=include = %s, total %s", got, r.Header.Get("X-Total-Count"))
		}
		if _, r := c.list(t, "/admin-api/guilds", url.Values{"_count": {"exact"}}); r.Header.Get("X-Total-Count") != "1" {
			t.Fatalf("default total = %s; want 1", r.Header.Get("X-Total-Count"))
		}
		if exp := string(c.do("GET", "/admin-api/guilds/_export.csv?_deleted=only", nil).want(t, 200).raw); !strings.Contains(exp, "alpha") || !strings.Contains(exp, "gamma") || strings.Contains(exp, "beta") {
			t.Fatalf("export of the Deleted view = %q", exp)
		}
		if exp := string(c.do("GET", "/admin-api/guilds/_export.csv", nil).want(t, 200).raw); strings.Contains(exp, "alpha") || !strings.Contains(exp, "beta") {
			t.Fatalf("default export = %q; want the live rows", exp)
		}
		c.do("GET", "/admin-api/guilds?_deleted=yes", nil).want(t, 400, "invalid_value")
		c.do("GET", "/admin-api/configs?_deleted=only", nil).want(t, 400, "invalid_query")
		// The deleted row has its page; a second delete finds no live row.
		if got := c.do("GET", "/admin-api/guilds/"+id, nil).want(t, 200).body; got["name"] != "alpha" || got["deleted_at"] == nil {
			t.Fatalf("GET a deleted row = %v", got)
		}
		c.do("DELETE", "/admin-api/guilds/"+id, nil).want(t, 404, "not_found")
		// Restore: back in the list, audited; a second restore is a 409.
		if got := c.do("POST", "/admin-api/guilds/"+id+"/_restore", nil).want(t, 200).body; got["deleted_at"] != nil {
			t.Fatalf("restore answer = %v; want deleted_at null", got)
		}
		c.do("POST", "/admin-api/guilds/"+id+"/_restore", nil).want(t, 409, "not_deleted")
		if got := fmt.Sprint(list(nil)); got != "[alpha beta]" {
			t.Fatalf("list after restore = %s", got)
		}
		if en := e.auditRows("restore"); len(en) != 1 || en[0].TargetID != id {
			t.Fatalf("restore audit = %+v", en)
		}
		// A revert of a delete restores the row it kept.
		var beta sdGuild
		must(0, db.NewSelect().Model(&beta).Where("name = ?", "beta").Scan(ctx))
		bid := fmt.Sprint(beta.ID)
		c.do("DELETE", "/admin-api/guilds/"+bid, nil).want(t, 200)
		var entry int64
		for _, en := range e.auditRows("delete") {
			if en.TargetID == bid {
				entry = en.ID
			}
		}
		if got := c.do("POST", "/admin-api/guilds/"+bid+"/_revert", map[string]any{"auditId": entry}).want(t, 200).body; got["name"] != "beta" || got["deleted_at"] != nil {
			t.Fatalf("revert of the delete = %v", got)
		}
		c.do("POST", "/admin-api/guilds/"+bid+"/_revert", map[string]any{"auditId": entry}).want(t, 409, "conflict")
		if n := count(t, db, (*sdGuild)(nil)); n != 2 {
			t.Fatalf("live guilds = %d; want alpha and beta", n)
		}
		var all int64
		all, _ = db.NewSelect().Model((*sdGuild)(nil)).WhereAllWithDeleted().Count(ctx)
		if all != 3 {
			t.Fatalf("guilds in the table = %d; want 3 (nothing deleted for good)", all)
		}
		// A table without soft delete: nothing to restore.
		c.do("POST", "/admin-api/configs/x/_restore", nil).want(t, 400, "not_soft_delete")
	})
}

package querytest

import (
	"context"
	"net/url"
	"reflect"
	"testing"

	"github.com/uptrace/bun"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
)

type owner struct {
	bun.BaseModel `bun:"table:owners,alias:o"`

	ID    int64  `bun:"id,pk,autoincrement"`
	Name  string `bun:"name"`
	Email string `bun:"email"`
}

type pet struct {
	bun.BaseModel `bun:"table:pets,alias:pt"`

	ID      int64  `bun:"id,pk,autoincrement"`
	OwnerID *int64 `bun:"owner_id"`
	Name    string `bun:"name,notnull"`
}

// TestWithLabels: the joined page has the rows, in the order, of the page
// without labels, at any window, and each row the label of its owner: the
// first non-empty label column, none for a NULL or dangling key or an
// owner with no label.
func TestWithLabels(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		for _, m := range []any{(*owner)(nil), (*pet)(nil)} {
			if _, err := db.NewCreateTable().Model(m).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		owners := []owner{{ID: 1, Name: "Ann"}, {ID: 2, Email: "bo@example.com"}, {ID: 3}}
		if _, err := db.NewInsert().Model(&owners).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		var pets []pet
		for i := int64(1); i <= 30; i++ {
			o := i%5 + 1 // owners 1..3, 4 and 5 dangle
			p := pet{ID: i, OwnerID: &o, Name: []string{"rex", "tom", "kit"}[i%3]}
			if i%7 == 0 {
				p.OwnerID = nil
			}
			pets = append(pets, p)
		}
		if _, err := db.NewInsert().Model(&pets).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		petT, err := schema.Inspect(db, "pets", (*pet)(nil))
		if err != nil {
			t.Fatal(err)
		}
		lb := []query.Label{{FK: "owner_id", Table: "owners", Ref: "id", Columns: []string{"name", "email"}}}
		want := map[int64]string{1: "Ann", 2: "bo@example.com"}
		for _, q := range []string{"_sort=name&_order=desc&_start=7&_end=19", "_start=0&_end=100", "_limit=4&_sort=name"} {
			v, _ := url.ParseQuery(q)
			l, err := query.Parse(petT, v, nil)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := query.ScanRows(ctx, l.Apply(query.Select(db, petT), petT), petT, nil)
			if err != nil {
				t.Fatal(err)
			}
			joined, err := query.ScanPage(ctx, l.WithLabels(db, l.Apply(query.Select(db, petT), petT), petT, lb), petT, nil, lb)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if len(joined) != len(plain) || len(plain) == 0 {
				t.Fatalf("%s: %d joined rows, %d plain", q, len(joined), len(plain))
			}
			for i, row := range joined {
				labels, _ := row["_labels"].(map[string]string)
				delete(row, "_labels")
				if !reflect.DeepEqual(row, plain[i]) {
					t.Fatalf("%s: row %d = %v; want %v", q, i, row, plain[i])
				}
				var o int64
				if p := row["owner_id"]; p != nil {
					o = p.(int64)
				}
				if w, ok := want[o]; ok != (labels != nil) || labels["owner_id"] != w {
					t.Errorf("%s: pet %v (owner %d) labels = %v; want %q", q, row["id"], o, labels, w)
				}
			}
		}
	})
}

// TestJoinable: keys join when both sides are integers, text or uuid.
func TestJoinable(t *testing.T) {
	col := func(dt schema.DataType, sqlType string) *schema.Column {
		return &schema.Column{DataType: dt, SQLType: sqlType}
	}
	for _, c := range []struct {
		fk, ref *schema.Column
		want    bool
	}{
		{col(schema.Integer, "bigint"), col(schema.Integer, "INTEGER"), true},
		{col(schema.String, "varchar"), col(schema.String, "VARCHAR(64)"), true},
		{col(schema.String, "uuid"), col(schema.String, "uuid"), true},
		{col(schema.String, "varchar"), col(schema.Integer, "bigint"), false},
		{col(schema.String, "varchar"), col(schema.String, "uuid"), false},
		{col(schema.String, "citext"), col(schema.String, "varchar"), false},
		{nil, col(schema.Integer, "bigint"), false},
	} {
		if got := query.Joinable(c.fk, c.ref); got != c.want {
			t.Errorf("Joinable(%v, %v) = %v; want %v", c.fk, c.ref, got, c.want)
		}
	}
}

// TestBounded: a page is bounded only in its primary key's order, one
// direction, without a search, filter or condition, within MaxWindow
// rows of the start (or by keyset), on a writable table with a primary
// key the database indexes and no soft deletes, with every label read by
// its target's key.
func TestBounded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if _, err := db.NewCreateTable().Model((*pet)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		// The same model over a table without a primary key or an index
		// of it: a page in its "key" order sorts the whole table.
		if _, err := db.ExecContext(ctx, "CREATE TABLE loose_pets (id BIGINT, owner_id BIGINT, name TEXT NOT NULL)"); err != nil {
			t.Fatal(err)
		}
		petT, err := schema.Inspect(db, "pets", (*pet)(nil))
		if err != nil {
			t.Fatal(err)
		}
		loose, err := schema.Inspect(db, "loose_pets", (*pet)(nil))
		if err != nil {
			t.Fatal(err)
		}
		loose.Name = "loose_pets"
		for _, tb := range []*schema.Table{petT, loose} {
			if _, err := schema.ReadCatalog(ctx, db, tb); err != nil {
				t.Fatal(err)
			}
		}
		if !petT.KeyOrdered || loose.KeyOrdered {
			t.Fatalf("KeyOrdered: pets %v, loose_pets %v; want true, false", petT.KeyOrdered, loose.KeyOrdered)
		}
		byKey := []query.Label{{FK: "owner_id", Table: "owners", Ref: "id", Columns: []string{"name"}, ByKey: true}}
		notByKey := []query.Label{{FK: "owner_id", Table: "owners", Ref: "email", Columns: []string{"name"}}}
		view := *petT
		view.NotWritable = "a view"
		noPK := *petT
		noPK.PK = nil
		soft := *petT
		soft.SoftDelete = petT.ByName["name"]
		for _, c := range []struct {
			q      string
			t      *schema.Table
			labels []query.Label
			want   bool
		}{
			{"_start=0&_end=100", petT, byKey, true},
			{"_sort=id&_order=desc&_start=900&_end=1000", petT, byKey, true},
			{"_limit=1000&_sort=id&_order=desc", petT, nil, true},
			{"_start=901&_end=1001", petT, nil, false},
			{"_sort=name", petT, nil, false},
			{"_sort=name,id", petT, nil, false},
			{"name=rex", petT, nil, false},
			{"name_like=re", petT, nil, false},
			{"_q=rex", petT, nil, false},
			{"_start=0&_end=100", petT, notByKey, false},
			{"_start=0&_end=100", &view, nil, false},
			{"_start=0&_end=100", &noPK, nil, false},
			{"_start=0&_end=100", &soft, nil, false},
			{"_start=0&_end=100", loose, nil, false},
		} {
			v, _ := url.ParseQuery(c.q)
			l, err := query.Parse(c.t, v, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.q, err)
			}
			if got := l.Bounded(c.t, c.labels); got != c.want {
				t.Errorf("%s on %s (no pk %v, soft delete %v, labels %v): bounded %v; want %v", c.q, c.t.Name, len(c.t.PK) == 0, c.t.SoftDelete != nil, c.labels, got, c.want)
			}
		}
	})
}

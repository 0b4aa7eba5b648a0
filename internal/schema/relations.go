package schema

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"unicode"

	bunschema "github.com/uptrace/bun/schema"
)

// Kind says how many target rows a relation reaches from one row.
type Kind string

// The relation kinds.
const (
	// One: this table's FK column holds the key of one target row; the
	// panel shows the column as a link to that row.
	One Kind = "one"
	// Many: the target's FK column holds this row's key; the panel shows
	// the matching target rows in a tab of this row's detail page.
	Many Kind = "many"
)

// Relation links a table to another resource.
type Relation struct {
	Name   string // relation name, used in URLs; unique per table
	Target string // resource key of the target table
	Kind   Kind
	// FK is the SQL name of the column holding the reference: a column of
	// this table for One, a column of the target for Many.
	FK string
	// Ref is the SQL name of the column FK refers to: a column of the
	// target for One, a column of this table for Many. It is the single
	// primary-key column of that table unless a rel: tag joins on another.
	Ref string
}

// tagRelation is a relation read from a rel: tag; the target is still a
// model type because keys are only known once every table is inspected.
type tagRelation struct {
	name   string
	kind   Kind
	fk     string
	ref    string
	target reflect.Type
}

// tagRelations reads the rel: tags of a Bun table. belongs-to is One;
// has-many is Many; has-one is Many too, because its foreign key lives on
// the target exactly as in has-many (the tab then holds at most one row).
// Joins on more than one column and m2m relations are skipped.
func tagRelations(bt *bunschema.Table) []tagRelation {
	rels := make([]*bunschema.Relation, 0, len(bt.Relations))
	for _, r := range bt.Relations {
		rels = append(rels, r)
	}
	sort.Slice(rels, func(i, j int) bool {
		return slices.Compare(rels[i].Field.Index, rels[j].Field.Index) < 0
	})
	var out []tagRelation
	for _, r := range rels {
		if len(r.BasePKs) != 1 || len(r.JoinPKs) != 1 || r.PolymorphicField != nil {
			continue
		}
		tr := tagRelation{name: lowerFirst(r.Field.GoName), target: r.JoinTable.Type}
		switch r.Type {
		case bunschema.BelongsToRelation:
			tr.kind, tr.fk, tr.ref = One, r.BasePKs[0].Name, r.JoinPKs[0].Name
		case bunschema.HasManyRelation, bunschema.HasOneRelation:
			tr.kind, tr.fk, tr.ref = Many, r.JoinPKs[0].Name, r.BasePKs[0].Name
		default:
			continue
		}
		out = append(out, tr)
	}
	return out
}

// Link sets the Relations of every table: first those read from rel: tags
// by Inspect, with targets resolved by model type (a target model that is
// not among tables drops the relation), then the declared ones, keyed by
// the owning table's key. A declared relation replaces a tag relation of
// the same name.
//
// A declared FK may be the SQL column name or the Go field name; it is
// normalized to the SQL name. Relations whose key side would be composite
// (a One relation to a table with a composite primary key, a Many relation
// from one) are skipped. Unknown tables, targets, kinds
// and columns are errors.
func Link(tables map[string]*Table, declared map[string][]Relation) error {
	byType := make(map[reflect.Type]*Table, len(tables))
	keys := make([]string, 0, len(tables))
	for key, t := range tables {
		keys = append(keys, key)
		// Two keys for one model: the first key in order wins, so the
		// result does not depend on map iteration.
		if prev, ok := byType[t.Model]; !ok || key < prev.Key {
			byType[t.Model] = t
		}
	}
	slices.Sort(keys)
	for key := range declared {
		if _, ok := tables[key]; !ok {
			return fmt.Errorf("schema: relations for unknown table %q%s", key, ClosestHint(key, keys))
		}
	}
	for _, key := range keys {
		t := tables[key]
		t.Relations = nil
		for _, tr := range t.tagRels {
			target, ok := byType[tr.target]
			if !ok {
				continue
			}
			t.Relations = append(t.Relations, Relation{Name: tr.name, Target: target.Key, Kind: tr.kind, FK: tr.fk, Ref: tr.ref})
		}
		for _, r := range declared[key] {
			r, ok, err := resolve(t, tables, r)
			if err != nil {
				return err
			}
			t.Relations = slices.DeleteFunc(t.Relations, func(x Relation) bool { return x.Name == r.Name })
			if ok {
				t.Relations = append(t.Relations, r)
			}
		}
	}
	return nil
}

// resolve validates a declared relation and normalizes its column names.
// ok is false for a relation skipped because of a composite key.
func resolve(t *Table, tables map[string]*Table, r Relation) (Relation, bool, error) {
	errorf := func(format string, args ...any) (Relation, bool, error) {
		return r, false, fmt.Errorf("schema: table %q: relation %q: %s", t.Key, r.Name, fmt.Sprintf(format, args...))
	}
	if r.Name == "" {
		return errorf("no name")
	}
	target, ok := tables[r.Target]
	if !ok {
		keys := make([]string, 0, len(tables))
		for k := range tables {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return errorf("unknown target %q%s", r.Target, ClosestHint(r.Target, keys))
	}
	// owner holds FK; keyed is the table whose key FK refers to.
	var owner, keyed *Table
	switch r.Kind {
	case One:
		owner, keyed = t, target
	case Many:
		owner, keyed = target, t
	default:
		return errorf("kind %q is neither %q nor %q", r.Kind, One, Many)
	}
	fk, ok := owner.Lookup(r.FK)
	if !ok {
		return errorf("table %q has no column %q%s", owner.Key, r.FK, ClosestHint(r.FK, owner.ColumnNames()))
	}
	r.FK = fk.Name
	if r.Ref == "" {
		if len(keyed.PK) != 1 {
			return r, false, nil
		}
		r.Ref = keyed.PK[0].Name
	} else {
		ref, ok := keyed.Lookup(r.Ref)
		if !ok {
			return errorf("table %q has no column %q%s", keyed.Key, r.Ref, ClosestHint(r.Ref, keyed.ColumnNames()))
		}
		r.Ref = ref.Name
	}
	return r, true, nil
}

// Inverses gives a table a Many relation for each One relation that
// points at it from a table from accepts, unless it has a Many relation
// over the same column already: a game's matches.winner_id -> users gives
// users a "matches" tab without a second declaration. The relation is
// named after the owner's key ("matches"), or the key and the column
// ("matchesByLoserId") when the table has a relation of that name; it is
// left out when both are taken. Call it after Link.
func Inverses(tables map[string]*Table, from func(key string) bool) {
	keys := make([]string, 0, len(tables))
	for k := range tables {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if !from(key) {
			continue
		}
		for _, r := range tables[key].Relations {
			target := tables[r.Target]
			if r.Kind != One || target == nil || slices.ContainsFunc(target.Relations, func(x Relation) bool {
				return x.Kind == Many && x.Target == key && x.FK == r.FK
			}) {
				continue
			}
			name := key
			if _, taken := target.Relation(name); taken {
				name = key + "By"
				for _, w := range splitWords(r.FK) {
					name += capitalize(w)
				}
			}
			if _, taken := target.Relation(name); taken {
				continue
			}
			target.Relations = append(target.Relations, Relation{Name: name, Target: key, Kind: Many, FK: r.FK, Ref: r.Ref})
		}
	}
}

// Relation returns the relation with the given name.
func (t *Table) Relation(name string) (Relation, bool) {
	i := slices.IndexFunc(t.Relations, func(r Relation) bool { return r.Name == name })
	if i < 0 {
		return Relation{}, false
	}
	return t.Relations[i], true
}

// lowerFirst turns a Go field name into a relation name: "Owner" -> "owner",
// "APIKeys" -> "apiKeys", "ID" -> "id".
func lowerFirst(s string) string {
	rs := []rune(s)
	n := 0
	for n < len(rs) && unicode.IsUpper(rs[n]) {
		n++
	}
	switch {
	case n == 0:
		return s
	case n == 1 || n == len(rs):
		// "Owner" or "ID": lower the run.
	default:
		n-- // "APIKeys": the last capital starts the next word
	}
	for i := 0; i < n; i++ {
		rs[i] = unicode.ToLower(rs[i])
	}
	return string(rs)
}

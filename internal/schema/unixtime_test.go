package schema

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

type unixTagged struct {
	ID      int64 `bun:"id,pk"`
	Seconds int64 `bun:"seconds" admin:"unixtime"`
	Millis  int64 `bun:"millis" admin:"unixtime=ms"`
	Plain   int64 `bun:"plain" admin:"other"`
}

type unixOnText struct {
	ID   int64  `bun:"id,pk"`
	Note string `bun:"note" admin:"unixtime"`
}

type unixBadUnit struct {
	ID int64 `bun:"id,pk"`
	At int64 `bun:"at" admin:"unixtime=h"`
}

// TestUnixTag: the admin:"unixtime" tag makes an integer column a time in
// seconds or milliseconds; on a text field, or with another unit, Inspect
// fails naming the column.
func TestUnixTag(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, sqlitedialect.New())
	tb, err := Inspect(db, "tagged", (*unixTagged)(nil))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]UnixUnit{"seconds": UnixSeconds, "millis": UnixMillis, "plain": ""} {
		c := tb.ByName[name]
		if c.Unix != want || (want != "") != (c.Kind == KindTime) {
			t.Errorf("%s: unix %q, kind %s; want unix %q", name, c.Unix, c.Kind, want)
		}
	}
	for _, m := range []any{(*unixOnText)(nil), (*unixBadUnit)(nil)} {
		if _, err := Inspect(db, "bad", m); err == nil || !strings.Contains(err.Error(), "unixtime") && !strings.Contains(err.Error(), "unix time") {
			t.Errorf("Inspect(%T) = %v; want an error about the unix time", m, err)
		}
	}
}

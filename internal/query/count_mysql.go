package query

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"

	"github.com/uptrace/bun"
	bunschema "github.com/uptrace/bun/schema"

	"github.com/gameadmin/admin/internal/schema"
)

// mysqlServers caches, per dialect (one per bun.DB, shared by its
// transactions), which server answers on its connections.
var mysqlServers sync.Map // bunschema.Dialect → MySQLServer

// mysqlServer is the server behind db, asked once per bun.DB.
func mysqlServer(ctx context.Context, db bun.IDB) (MySQLServer, error) {
	var key bunschema.Dialect = db.Dialect()
	if s, ok := mysqlServers.Load(key); ok {
		return s.(MySQLServer), nil
	}
	s, err := DetectMySQLServer(ctx, db)
	if err != nil {
		return 0, err
	}
	mysqlServers.Store(key, s)
	return s, nil
}

// mysqlEstimate is estimate on MySQL and MariaDB: InnoDB's row count of
// the table (unfiltered; schema.MySQLRowEstimate), or the optimizer's
// rows times its filtered share from EXPLAIN FORMAT=JSON (filtered, or a
// view). ok is false when EXPLAIN names no table to read.
func mysqlEstimate(ctx context.Context, db bun.IDB, t *schema.Table, q *bun.SelectQuery, filtered bool) (int64, bool, error) {
	if !filtered {
		n, err := schema.MySQLRowEstimate(ctx, db, t.Name)
		if err != nil {
			return 0, false, err
		}
		if n >= 0 {
			return n, true, nil
		}
	}
	var out string
	if err := db.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON ?", q).Scan(&out); err != nil {
		return 0, false, err
	}
	// MariaDB lists the tables in a nested_loop, MySQL 8 in table;
	// MySQL 8 writes filtered as a string.
	type access struct {
		Rows     float64     `json:"rows"`
		Examined float64     `json:"rows_examined_per_scan"`
		Filtered json.Number `json:"filtered"`
	}
	var plan struct {
		Block struct {
			Table *access `json:"table"`
			Loop  []struct {
				Table *access `json:"table"`
			} `json:"nested_loop"`
		} `json:"query_block"`
	}
	d := json.NewDecoder(strings.NewReader(out))
	d.UseNumber()
	if err := d.Decode(&plan); err != nil {
		return 0, false, nil
	}
	a := plan.Block.Table
	if a == nil && len(plan.Block.Loop) > 0 {
		a = plan.Block.Loop[0].Table
	}
	if a == nil {
		return 0, false, nil
	}
	rows := max(a.Rows, a.Examined)
	if f, err := a.Filtered.Float64(); err == nil && a.Filtered != "" {
		rows *= f / 100
	}
	return int64(math.Round(rows)), true, nil
}

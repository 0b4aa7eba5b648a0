package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// handPgx is hand's first page read as a game on pgx could read it:
// pgx's own rows (RawValues, through sql.Conn.Raw), each cell's wire
// bytes written as JSON by hand, with no database/sql conversion, no map
// and no reflection. It is the least a page read in Go costs this
// process; the panel's answer has the same keys, in the same order.
func handPgx(dsn string, conns int) (http.Handler, func() error, error) {
	sqldb, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, nil, err
	}
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	const stmt = `SELECT e.id, e.user_id, e.name, e.payload, e.created_at, COALESCE(NULLIF(u.display_name, ''), NULLIF(u.email, ''))
		FROM game_analytics_events AS e LEFT JOIN game_users AS u ON u.id = e.user_id ORDER BY e.id DESC LIMIT 100`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := pgxPage(r.Context(), sqldb, stmt)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}), sqldb.Close, nil
}

// pgxPage runs stmt on a connection of db through pgx itself and writes
// its rows as the panel's JSON.
func pgxPage(ctx context.Context, db *sql.DB, stmt string) ([]byte, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	b := make([]byte, 0, 32<<10)
	err = conn.Raw(func(dc any) error {
		rows, err := dc.(*stdlib.Conn).Conn().Query(ctx, stmt)
		if err != nil {
			return err
		}
		defer rows.Close()
		b = append(b, '[')
		n := 0
		for rows.Next() {
			if n++; n > 1 {
				b = append(b, ',')
			}
			if b, err = pgxRow(b, rows.FieldDescriptions(), rows.RawValues()); err != nil {
				return err
			}
		}
		b = append(b, ']', '\n')
		return rows.Err()
	})
	return b, err
}

// pgxRow appends one row of the hand-written page (id, user_id, name,
// payload, created_at, the user's label) from its wire values, its keys
// sorted as the panel's are.
func pgxRow(b []byte, fields []pgconn.FieldDescription, vals [][]byte) ([]byte, error) {
	if len(vals) != 6 {
		return nil, fmt.Errorf("%d columns", len(vals))
	}
	for i, f := range fields {
		if f.Format != pgx.BinaryFormatCode && (i == 0 || i == 4) {
			return nil, fmt.Errorf("column %s in text format", f.Name)
		}
	}
	b = append(b, '{')
	if vals[5] != nil {
		b = append(b, `"_labels":{"user_id":`...)
		b = append(jsonString(b, vals[5]), "},"...)
	}
	b = append(b, `"created_at":"`...)
	us := int64(binary.BigEndian.Uint64(vals[4]))
	b = time.Unix(pgEpoch+us/1e6, us%1e6*1e3).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","id":`...)
	b = strconv.AppendInt(b, int64(binary.BigEndian.Uint64(vals[0])), 10)
	b = append(b, `,"name":`...)
	b = jsonString(b, vals[2])
	b = append(b, `,"payload":`...)
	if vals[3] == nil {
		b = append(b, "null"...)
	} else {
		text := vals[3]
		if fields[3].Format == pgx.BinaryFormatCode {
			text = text[1:] // jsonb's binary form: a version byte, then the text
		}
		var cb bytes.Buffer
		if err := json.Compact(&cb, text); err != nil {
			return nil, err
		}
		b = append(b, cb.Bytes()...)
	}
	b = append(b, `,"user_id":`...)
	if vals[1] == nil {
		b = append(b, "null"...)
	} else {
		b = jsonString(b, vals[1])
	}
	return append(b, '}'), nil
}

// pgEpoch is PostgreSQL's epoch, 2000-01-01 UTC, in Unix seconds.
const pgEpoch = 946684800

// jsonString appends s quoted as a JSON string, as encoding/json writes
// it.
func jsonString(b, s []byte) []byte {
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			out, _ := json.Marshal(string(s))
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

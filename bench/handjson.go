package main

import (
	"database/sql"
	"net/http"

	"github.com/uptrace/bun"
)

// handJSON is hand's first page with PostgreSQL writing the answer: the
// page and its labels as one cell of JSON text (json_agg), which the
// handler copies to the client without reading a value. It is the least
// a page can cost the game's process when the database renders it.
func handJSON(db *bun.DB) (http.Handler, error) {
	page, err := db.DB.Prepare(`SELECT COALESCE(json_agg(json_build_object('created_at', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'id', p.id, 'name', p.name, 'payload', p.payload, 'user_id', p.user_id, '_labels', CASE WHEN p.l IS NOT NULL THEN json_build_object('user_id', p.l) END) ORDER BY p.id DESC)::text, '[]')
		FROM (SELECT e.id, e.user_id, e.name, e.payload, e.created_at, COALESCE(NULLIF(u.display_name, ''), NULLIF(u.email, '')) AS l
		FROM game_analytics_events AS e LEFT JOIN game_users AS u ON u.id = e.user_id ORDER BY e.id DESC LIMIT 100) AS p`)
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs, err := page.QueryContext(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer rs.Close()
		var cell sql.RawBytes
		for rs.Next() {
			if err := rs.Scan(&cell); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(cell)
		}
	}), nil
}

package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/mysqldialect"
)

// openMySQL opens mysql://USER[:PASS]@HOST[:PORT]/DATABASE, creating the
// database if it is not there yet (the demo's convenience; a game's
// database exists). The pool is opened as a game's should be: times
// parsed into time.Time in UTC (parseTime, loc), utf8mb4 so players'
// names and chat keep every character, and the session's zone UTC so a
// TIMESTAMP column reads back the instant written.
func openMySQL(dsn string) (*bun.DB, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, fmt.Errorf("-db: %w", err)
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = u.Hostname() + ":3306"
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" || strings.ContainsAny(cfg.DBName, "`/") {
		return nil, fmt.Errorf("-db %q: name the database: mysql://root@127.0.0.1:3306/game", dsn)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Collation = "utf8mb4_unicode_ci"
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	for k, v := range u.Query() {
		cfg.Params[k] = v[0]
	}

	root := *cfg
	root.DBName = ""
	conn, err := mysql.NewConnector(&root)
	if err != nil {
		return nil, err
	}
	rootDB := sql.OpenDB(conn)
	defer rootDB.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := rootDB.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+cfg.DBName+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		return nil, fmt.Errorf("-db: create database %s: %w", cfg.DBName, err)
	}

	conn, err = mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	sqldb := sql.OpenDB(conn)
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(10)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	return bun.NewDB(sqldb, mysqldialect.New()), nil
}

// mysqlUserRef gives table.col, a reference to the built-in users' id,
// that id's collation and its foreign key, once, on MariaDB and MySQL
// (a no-op elsewhere): the panel's users id is utf8mb4_bin, and InnoDB
// refuses a key between two collations (errno 150), which Bun's CREATE
// TABLE cannot spell per dialect.
func mysqlUserRef(ctx context.Context, db *bun.DB, table, col, null, onDelete string) error {
	if db.Dialect().Name() != dialect.MySQL {
		return nil
	}
	var n int
	if err := db.NewRaw("SELECT COUNT(*) FROM information_schema.key_column_usage WHERE table_schema = DATABASE() "+
		"AND table_name = ? AND column_name = ? AND referenced_table_name = 'game_users'", table, col).Scan(ctx, &n); err != nil || n > 0 {
		return err
	}
	_, err := db.NewRaw("ALTER TABLE ? MODIFY ? VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin "+null+
		", ADD FOREIGN KEY (?) REFERENCES game_users (id) ON DELETE "+onDelete, bun.Ident(table), bun.Ident(col), bun.Ident(col)).Exec(ctx)
	return err
}

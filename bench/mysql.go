package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
)

// isMySQL says dsn is a mysql:// URL: MariaDB, or MySQL.
func isMySQL(dsn string) bool { return strings.HasPrefix(dsn, "mysql://") }

// mysqlConfig is the driver's configuration of
// mysql://USER[:PASS]@HOST[:PORT]/DATABASE, as the demo opens it
// (examples/gameserver/mysql.go) and the README tells a game to: times
// parsed into time.Time in UTC (parseTime, loc), utf8mb4, the session's
// zone UTC. The URL's query adds session variables.
func mysqlConfig(dsn string) (*mysql.Config, error) {
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
		return nil, fmt.Errorf("-db %q: name the database: mysql://root@127.0.0.1:3306/bench", dsn)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Collation = "utf8mb4_unicode_ci"
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	for k, v := range u.Query() {
		cfg.Params[k] = v[0]
	}
	return cfg, nil
}

// serverDB is a connection to cfg's server, in no database.
func serverDB(cfg *mysql.Config) (*sql.DB, error) {
	root := *cfg
	root.DBName = ""
	conn, err := mysql.NewConnector(&root)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// openMySQL opens dsn's database, creating it when it is not there (a
// scratch database the bench fills), with a pool of conns connections.
func openMySQL(dsn string, conns int) (*bun.DB, error) {
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return nil, err
	}
	srv, err := serverDB(cfg)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	if _, err := srv.Exec("CREATE DATABASE IF NOT EXISTS `" + cfg.DBName + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		return nil, fmt.Errorf("create database %s: %w", cfg.DBName, err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	sqldb := sql.OpenDB(conn)
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	return bun.NewDB(sqldb, mysqldialect.New()), nil
}

// scratchMySQL creates the database name on dsn's server (dropping a
// leftover one) and returns its drop.
func scratchMySQL(ctx context.Context, dsn, name string) (drop func(), err error) {
	if strings.ContainsAny(name, "`/") {
		return nil, fmt.Errorf("-create-db %q: not a database name", name)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, err
	}
	u.Path = "/" + name
	cfg, err := mysqlConfig(u.String())
	if err != nil {
		return nil, err
	}
	srv, err := serverDB(cfg)
	if err != nil {
		return nil, err
	}
	for _, q := range []string{"DROP DATABASE IF EXISTS `" + name + "`", "CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"} {
		if _, err := srv.ExecContext(ctx, q); err != nil {
			srv.Close()
			return nil, err
		}
	}
	return func() {
		if _, err := srv.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			log.Printf("bench: drop database %s: %v", name, err)
		}
		srv.Close()
	}, nil
}

// Command gameadmin-sql prints the DDL that admin.New would run for the
// built-in tables (the default Options.Tables), for review or for a
// migration tool:
//
//	go run ./cmd/gameadmin-sql -dialect pg -prefix ops_
//
// A game with its own users table or a subset of the built-in tables
// calls admin.MigrationSQL with its Options instead: only it knows the
// users model and its id type.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gameadmin/admin"
)

func main() {
	d := flag.String("dialect", "pg", "pg, sqlite or mysql (MariaDB too)")
	prefix := flag.String("prefix", admin.DefaultTablePrefix, "Options.TablePrefix")
	flag.Parse()
	stmts, err := admin.MigrationSQL(*d, admin.Options{TablePrefix: *prefix})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, s := range stmts {
		fmt.Printf("%s;\n\n", s)
	}
}

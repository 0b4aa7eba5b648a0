// Package migratetest holds the tests of internal/migrate that apply its
// steps to SQLite and PostgreSQL, and (mysql_test.go) the built-in
// tables' plan on MariaDB: Migrate, the script, the lock, the keys.
package migratetest

// Package migratetest holds the tests of internal/migrate that apply its
// steps to SQLite and PostgreSQL.
package migratetest

// Package querytest holds the tests of internal/query that run its SQL on
// SQLite and PostgreSQL.
package querytest

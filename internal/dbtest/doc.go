// Package dbtest is the module of the tests that need a real database: the
// SQLite and PostgreSQL drivers are required here, never by the library's
// own module, so a game that imports the panel does not download them.
// mysqltest holds the tests of the MySQL and MariaDB layers not yet wired
// into the panel.
//
// testdb opens a fresh database per test; admintest, querytest, schematest
// and migratetest hold the database tests of package admin and of the
// internal packages query, schema and migrate, as outside callers (the
// unit tests that need no database stay beside their code). It is a
// module under internal/ so that it may use the internal packages, as
// bun's internal/dbtest does.
package dbtest

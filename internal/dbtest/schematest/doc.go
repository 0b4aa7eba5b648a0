// Package schematest holds the tests of internal/schema that read a live
// database's catalog.
package schematest

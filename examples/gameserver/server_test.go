package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/gameadmin/admin/internal/dbtest/testdb"
)

// TestServerBoundsClients: the demo's server ends slow bodies, slow readers
// and idle keep-alives, and bounds header size (only ReadHeaderTimeout was
// set: 200 slow-body POSTs stayed open indefinitely).
func TestServerBoundsClients(t *testing.T) {
	srv := newServer(":0", http.NotFoundHandler())
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if d <= 0 {
			t.Errorf("%s = %v; want a bound", name, d)
		}
	}
	if srv.MaxHeaderBytes <= 0 || srv.MaxHeaderBytes > 1<<20 {
		t.Errorf("MaxHeaderBytes = %d; want a bound below the 1 MiB default", srv.MaxHeaderBytes)
	}
}

// TestPostgresPoolCapped: the demo's PostgreSQL pool has a ceiling
// (database/sql's default is none).
func TestPostgresPoolCapped(t *testing.T) {
	db, err := openDB(testdb.PGDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := db.DB.Stats().MaxOpenConnections; n <= 0 || n > 100 {
		t.Fatalf("MaxOpenConnections = %d; want a cap", n)
	}
}

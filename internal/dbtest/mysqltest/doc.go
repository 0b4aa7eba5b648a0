// Package mysqltest holds the tests of the MySQL and MariaDB layers that
// are not yet wired into the panel (admin.New refuses the mysql dialect):
// internal/dberr's reading of the server's refusals and internal/query's
// statement time limit, each run on the real MariaDB server of
// testdb.MySQL (set ADMIN_REQUIRE_MYSQL=1 to fail rather than skip when
// it is down).
package mysqltest

package pgtest

import (
	"context"
	"database/sql"
	"testing"
)

func TestClusterServesTwoIsolatedDatabases(t *testing.T) {
	c := Start(t)
	ctx := context.Background()
	a, b := c.NewDatabase(t), c.NewDatabase(t)
	if a == b {
		t.Fatalf("NewDatabase returned the same DSN twice: %s", a)
	}
	dbA, err := sql.Open("pgx", a)
	if err != nil {
		t.Fatal(err)
	}
	defer dbA.Close()
	if _, err := dbA.ExecContext(ctx, `CREATE TABLE x (v INT); INSERT INTO x VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	dbB, err := sql.Open("pgx", b)
	if err != nil {
		t.Fatal(err)
	}
	defer dbB.Close()
	var n int
	err = dbB.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'x'`).Scan(&n)
	if err != nil || n != 0 {
		t.Fatalf("second database sees the first one's table: n=%d err=%v", n, err)
	}
	var addr string
	if err := dbA.QueryRowContext(ctx, `SELECT host(inet_server_addr())`).Scan(&addr); err != nil || addr != "127.0.0.1" {
		t.Fatalf("server address = %q (err %v), want loopback 127.0.0.1", addr, err)
	}
}

package sqlstore

import (
	"testing"
)

func TestRebind(t *testing.T) {
	q := `UPDATE t SET a = ? WHERE b = ? AND c = ?`
	if got := SQLite.Rebind(q); got != q {
		t.Errorf("SQLite.Rebind changed the query: %q", got)
	}
	if got, want := Postgres.Rebind(q), `UPDATE t SET a = $1 WHERE b = $2 AND c = $3`; got != want {
		t.Errorf("Postgres.Rebind = %q, want %q", got, want)
	}
}

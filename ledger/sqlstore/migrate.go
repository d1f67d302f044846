package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// HasColumn reports whether table has column, by selecting it from no rows:
// the same statement works on both databases and on a read-only handle.
// An error other than a missing table or column is indistinguishable from
// one here; the caller's next statement reports it.
func HasColumn(ctx context.Context, db *sql.DB, table, column string) bool {
	rows, err := db.QueryContext(ctx, `SELECT `+column+` FROM `+table+` WHERE 1 = 0`)
	if err != nil {
		return false
	}
	rows.Close()
	return true
}

// addColumn adds c unless the table has it. The probe comes first because
// on PostgreSQL even ALTER TABLE ... ADD COLUMN IF NOT EXISTS takes an
// exclusive lock on the table, and a process starting beside a busy one
// would queue every query on the table behind it. Two processes migrating
// at once may both find the column missing: PostgreSQL's IF NOT EXISTS
// absorbs the race, and on SQLite the loser's ALTER fails and the second
// probe finds the column the winner added.
func (s *Store) addColumn(ctx context.Context, c Column) error {
	if HasColumn(ctx, s.db, c.Table, c.Name) {
		return nil
	}
	ifNot := ""
	if s.d.Name == "postgres" {
		ifNot = "IF NOT EXISTS "
	}
	_, err := s.db.ExecContext(ctx, `ALTER TABLE `+c.Table+` ADD COLUMN `+ifNot+c.Name+` `+c.Type)
	if err != nil && !HasColumn(ctx, s.db, c.Table, c.Name) {
		return fmt.Errorf("sqlstore: migrate: add %s.%s: %w", c.Table, c.Name, err)
	}
	return nil
}

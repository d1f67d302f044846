package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"testing"
)

// A COMMIT whose connection broke has an unknown outcome and is read back;
// a COMMIT the database refused did not take and is not.
func TestIsConnectionLoss(t *testing.T) {
	for _, err := range []error{sql.ErrConnDone, context.DeadlineExceeded, io.ErrUnexpectedEOF,
		errors.New("conn closed"), fmt.Errorf("commit: %w", errors.New("FATAL: terminating connection due to administrator command"))} {
		if !isConnectionLoss(err) {
			t.Errorf("%v: not taken for a lost connection", err)
		}
	}
	for _, err := range []error{nil, errors.New(`ERROR: could not serialize access (SQLSTATE 40001)`)} {
		if isConnectionLoss(err) {
			t.Errorf("%v: taken for a lost connection", err)
		}
	}
}

func TestETag(t *testing.T) {
	if got := ETag(12); got != `"v12"` {
		t.Errorf("ETag(12) = %s", got)
	}
}

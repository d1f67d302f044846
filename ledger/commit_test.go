package ledger

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// lostCommitDriver begins transactions whose Commit fails the way a
// networked database's does when the connection drops during COMMIT.
type lostCommitDriver struct{}

func (lostCommitDriver) Connect(context.Context) (driver.Conn, error) { return lostCommitConn{}, nil }
func (d lostCommitDriver) Driver() driver.Driver                      { return nil }

type lostCommitConn struct{}

func (lostCommitConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no statements") }
func (lostCommitConn) Close() error                        { return nil }
func (lostCommitConn) Begin() (driver.Tx, error)           { return lostCommitTx{}, nil }

type lostCommitTx struct{}

func (lostCommitTx) Commit() error   { return errors.New("connection reset during COMMIT") }
func (lostCommitTx) Rollback() error { return nil }

// oneShotStore reserves every key and counts releases; beginErr makes Begin
// fail instead.
type oneShotStore struct {
	Store
	db       *sql.DB
	beginErr error
	released int
}

func (s *oneShotStore) Get(context.Context, ID) (Record, bool, error) { return Record{}, false, nil }
func (s *oneShotStore) Reserve(context.Context, Reservation) (Decision, error) {
	return Decision{Outcome: Reserved}, nil
}
func (s *oneShotStore) Complete(context.Context, *sql.Tx, ID, string, Response) error { return nil }
func (s *oneShotStore) Release(context.Context, ID, string) error {
	s.released++
	return nil
}

func (s *oneShotStore) Begin(ctx context.Context) (*sql.Tx, error) {
	if s.beginErr != nil {
		return nil, s.beginErr
	}
	return s.db.BeginTx(ctx, nil)
}

// TestLostCommitIsNotCalledNotExecuted: the 503 after a failed COMMIT says
// the outcome is unknown (the database may have committed), while a failure
// before the handler ran still says "not executed".
func TestLostCommitIsNotCalledNotExecuted(t *testing.T) {
	db := sql.OpenDB(lostCommitDriver{})
	defer db.Close()
	for _, tc := range []struct {
		name     string
		beginErr error
		problem  string
		executed bool
	}{
		{"commit lost", nil, ProblemOutcomeUnknown, true},
		{"begin failed", errors.New("too many connections"), ProblemUnavailable, false},
	} {
		st := &oneShotStore{db: db, beginErr: tc.beginErr}
		l, err := New(Config{Store: st, Caller: func(*http.Request) (string, error) { return "alice", nil }})
		if err != nil {
			t.Fatal(err)
		}
		ran := false
		h := l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ran = true
			w.WriteHeader(http.StatusCreated)
		}))
		r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{}`))
		r.Header.Set("Idempotency-Key", "k1")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !strings.Contains(body, tc.problem) {
			t.Errorf("%s: %d %s, want a retryable 503 %s", tc.name, w.Code, body, tc.problem)
		}
		if claims := strings.Contains(body, "not executed"); claims == tc.executed {
			t.Errorf("%s (handler ran: %v): the answer says %q", tc.name, ran, body)
		}
		if ran != tc.executed || st.released != 1 {
			t.Errorf("%s: handler ran %v, %d releases; want %v, 1", tc.name, ran, st.released, tc.executed)
		}
	}
}

package ledger

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/runtime/problem"
)

// commitDriver begins transactions whose Commit calls onCommit, which
// decides what the server did (apply the completion or not) and what the
// client hears (nil, a lost connection, the server's refusal).
type commitDriver struct{ onCommit func() error }

func (d commitDriver) Connect(context.Context) (driver.Conn, error) { return commitConn(d), nil }
func (d commitDriver) Driver() driver.Driver                        { return nil }

type commitConn commitDriver

func (commitConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no statements") }
func (commitConn) Close() error                        { return nil }
func (c commitConn) Begin() (driver.Tx, error)         { return commitTx(c), nil }

type commitTx commitConn

func (t commitTx) Commit() error { return t.onCommit() }
func (commitTx) Rollback() error { return nil }

// sqlStateError is a server's answer to COMMIT, as pgx's *pgconn.PgError
// carries it.
type sqlStateError string

func (e sqlStateError) Error() string    { return "server refused COMMIT: " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

// commitStore keeps one key's row in memory, as a database would: Complete
// stages the completion, which reaches the row only when the test's COMMIT
// applies it. It counts the reads after a failed commit, and getErr makes
// them fail.
type commitStore struct {
	Store
	db      *sql.DB
	mu      sync.Mutex
	row     *Record
	staged  *Record
	gets    int
	getErr  error
	release int
}

func (s *commitStore) Get(context.Context, ID) (Record, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	if s.getErr != nil {
		return Record{}, false, s.getErr
	}
	if s.row == nil {
		return Record{}, false, nil
	}
	return *s.row, true, nil
}

func (s *commitStore) Reserve(_ context.Context, r Reservation) (Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := Record{ID: r.ID, Fingerprint: r.Fingerprint, State: StateInProgress, LeaseOwner: r.Owner,
		LeaseExpires: r.Now.Add(r.Lease), ExpiresAt: r.Now.Add(r.TTL)}
	s.row = &rec
	return Decision{Outcome: Reserved, Record: rec}, nil
}

func (s *commitStore) Begin(ctx context.Context) (*sql.Tx, error) { return s.db.BeginTx(ctx, nil) }

func (s *commitStore) Complete(_ context.Context, _ *sql.Tx, _ ID, owner string, resp Response) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	done := *s.row
	done.State, done.Response = StateCompleted, resp
	s.staged = &done
	return nil
}

// apply is the server committing: the staged completion reaches the row.
func (s *commitStore) apply() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.row, s.staged = s.staged, nil
}

func (s *commitStore) Release(_ context.Context, _ ID, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release++
	if s.row != nil && s.row.State == StateInProgress && s.row.LeaseOwner == owner {
		s.row = nil
	}
	return nil
}

// TestLostCommitIsSettledByReadingTheKeyBack: when COMMIT fails, the ledger
// answers only what it knows. It reads the key back: completed by this
// execution, the handler's answer is sent (the resend replays it); absent,
// a 503 "not executed" (the resend executes); unreadable, a 503 "outcome
// unknown". A COMMIT the server refused (a serialization failure) is a
// rollback and is not read back. Every 503 carries Retry-After, and in
// every case the business action is committed once in all.
func TestLostCommitIsSettledByReadingTheKeyBack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lands   bool  // the server commits the first attempt
		heard   error // what the client hears from COMMIT
		getErr  error
		status  int
		problem string
		gets    int // reads after the failed commit
	}{
		{"the reply to COMMIT is lost", true, io.ErrUnexpectedEOF, nil, http.StatusCreated, "", 1},
		{"COMMIT never reached the server", false, errors.New("write: connection reset by peer"), nil, http.StatusServiceUnavailable, problem.StoreUnavailable, 1},
		{"the key cannot be read back", true, io.EOF, errors.New("no route to host"), http.StatusServiceUnavailable, problem.OutcomeUnknown, 1},
		{"the server refused COMMIT", false, sqlStateError("40001"), nil, http.StatusServiceUnavailable, problem.StoreUnavailable, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &commitStore{}
			attempt, committed := 0, 0
			st.db = sql.OpenDB(commitDriver{onCommit: func() error {
				attempt++
				if attempt > 1 || tc.lands {
					st.apply()
					committed++
				}
				if attempt > 1 {
					return nil
				}
				st.getErr = tc.getErr
				return tc.heard
			}})
			defer st.db.Close()
			h, ran := lostCommitServer(t, st)
			w := post(h, "k1")
			gets := st.gets
			if w.Code != tc.status || (tc.status == http.StatusServiceUnavailable) != (w.Header().Get("Retry-After") != "") {
				t.Fatalf("%d (Retry-After %q) %s, want %d", w.Code, w.Header().Get("Retry-After"), w.Body, tc.status)
			}
			if tc.problem != "" && !strings.Contains(w.Body.String(), tc.problem) {
				t.Fatalf("%s, want %s", w.Body, tc.problem)
			}
			if tc.status == http.StatusCreated && (w.Body.String() != `{"id":"ord_1"}` || w.Header().Get("Idempotent-Replayed") != "") {
				t.Fatalf("%s (replayed %q), want the handler's own answer", w.Body, w.Header().Get("Idempotent-Replayed"))
			}
			if gets-1 != tc.gets { // one read is the peek before reserving
				t.Errorf("%d reads after the commit, want %d", gets-1, tc.gets)
			}
			st.getErr = nil
			w = post(h, "k1")
			if w.Code != http.StatusCreated || w.Body.String() != `{"id":"ord_1"}` {
				t.Fatalf("resend: %d %s", w.Code, w.Body)
			}
			if committed != 1 {
				t.Errorf("the business transaction committed %d times (handler ran %d), want once", committed, *ran)
			}
		})
	}
}

// TestFailedBeginIsNotExecuted: a store failure before the handler runs
// says "not executed".
func TestFailedBeginIsNotExecuted(t *testing.T) {
	st := &commitStore{db: sql.OpenDB(commitDriver{onCommit: func() error { return nil }})}
	st.db.Close() // Begin fails: the pool is closed
	h, ran := lostCommitServer(t, st)
	w := post(h, "k1")
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), problem.StoreUnavailable) || *ran != 0 || st.row != nil {
		t.Fatalf("%d %s, handler ran %d, row %v", w.Code, w.Body, *ran, st.row)
	}
}

// lostCommitServer is the ledger on st in front of a handler that counts
// its runs and answers 201.
func lostCommitServer(t *testing.T, st Store) (http.Handler, *int) {
	t.Helper()
	l, err := New(Config{Store: st, Caller: func(*http.Request) (string, error) { return "alice", nil }, ReplayCache: -1})
	if err != nil {
		t.Fatal(err)
	}
	ran := new(int)
	return l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*ran++
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"ord_1"}`)
	})), ran
}

func post(h http.Handler, key string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{}`))
	r.Header.Set("Idempotency-Key", key)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

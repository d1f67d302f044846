package ledger

import (
	"context"
	"database/sql"
	"net/http"
	"testing"
)

// settlerStore is a commitStore whose Reserve settles repeats itself, as
// sqlstore's does on PostgreSQL.
type settlerStore struct {
	commitStore
	reserves int
}

func (s *settlerStore) ReserveSettlesRepeats() bool { return true }

func (s *settlerStore) Reserve(ctx context.Context, r Reservation) (Decision, error) {
	s.reserves++
	if s.row != nil && s.row.State == StateCompleted {
		return Decision{Outcome: Replay, Record: *s.row}, nil
	}
	return s.commitStore.Reserve(ctx, r)
}

// TestRepeatSettlerIsNotReadFirst: with a store whose Reserve settles
// repeats (RepeatSettler), a fresh key costs no read before the
// reservation; a repeat of a key this process saw is read first (no write),
// and the replay is cached, so the next repeat touches no store. Another
// process, which never saw the key, settles its repeat with Reserve alone.
func TestRepeatSettlerIsNotReadFirst(t *testing.T) {
	st := &settlerStore{}
	st.db = sql.OpenDB(commitDriver{onCommit: func() error { st.apply(); return nil }})
	defer st.db.Close()
	handler := func() http.Handler {
		l, err := New(Config{Store: st, Caller: func(*http.Request) (string, error) { return "alice", nil }})
		if err != nil {
			t.Fatal(err)
		}
		return l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusCreated)
		}))
	}
	h := handler()
	for i, want := range []struct{ gets, reserves int }{{0, 1}, {1, 1}, {1, 1}} {
		if w := post(h, "k1"); w.Code != http.StatusCreated || (i > 0) != (w.Header().Get("Idempotent-Replayed") == "true") {
			t.Fatalf("request %d: %d, replayed %q", i, w.Code, w.Header().Get("Idempotent-Replayed"))
		}
		if st.gets != want.gets || st.reserves != want.reserves {
			t.Fatalf("after request %d: %d reads and %d reservations, want %d and %d", i, st.gets, st.reserves, want.gets, want.reserves)
		}
	}
	if w := post(handler(), "k1"); w.Header().Get("Idempotent-Replayed") != "true" || st.gets != 1 || st.reserves != 2 {
		t.Fatalf("another process: replayed %q after %d reads and %d reservations, want a replay by Reserve alone",
			w.Header().Get("Idempotent-Replayed"), st.gets, st.reserves)
	}
}

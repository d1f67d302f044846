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
// reservation, a repeat is settled by Reserve alone, and the replay it
// returns is cached like a read one, so the next repeat touches no store.
func TestRepeatSettlerIsNotReadFirst(t *testing.T) {
	st := &settlerStore{}
	st.db = sql.OpenDB(commitDriver{onCommit: func() error { st.apply(); return nil }})
	defer st.db.Close()
	l, err := New(Config{Store: st, Caller: func(*http.Request) (string, error) { return "alice", nil }})
	if err != nil {
		t.Fatal(err)
	}
	h := l.Handle("createOrder", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}))
	for i, want := range []struct{ gets, reserves int }{{0, 1}, {0, 2}, {0, 2}} {
		if w := post(h, "k1"); w.Code != http.StatusCreated || (i > 0) != (w.Header().Get("Idempotent-Replayed") == "true") {
			t.Fatalf("request %d: %d, replayed %q", i, w.Code, w.Header().Get("Idempotent-Replayed"))
		}
		if st.gets != want.gets || st.reserves != want.reserves {
			t.Fatalf("after request %d: %d reads and %d reservations, want %d and %d", i, st.gets, st.reserves, want.gets, want.reserves)
		}
	}
}

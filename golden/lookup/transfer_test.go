package lookup_test

// A transfer's optional reference is its call's key, and its result echoes
// it under meta, where x-lookup's match says to look; the transfer list
// ignores its filter. Business effect asserted: how many transfers the
// bank executed.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/lookup"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// bank executes transfers and lists them all, whatever the reference
// asked for; lose drops the connection after executing.
type bank struct {
	mu        sync.Mutex
	transfers []lookup.Transfer
	lose      bool
	lists     int
}

func newBank(t *testing.T) (*bank, *httptest.Server) {
	b := &bank{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /transfers", b.create)
	mux.HandleFunc("GET /transfers", b.list)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return b, srv
}

func (b *bank) create(w http.ResponseWriter, r *http.Request) {
	var nt lookup.NewTransfer
	_ = json.NewDecoder(r.Body).Decode(&nt)
	b.mu.Lock()
	defer b.mu.Unlock()
	tr := lookup.Transfer{ID: "tr_" + *nt.Reference, Amount: nt.Amount, Meta: &lookup.TransferMeta{Reference: nt.Reference}}
	b.transfers = append(b.transfers, tr)
	if b.lose {
		drop(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(tr)
}

func (b *bank) list(w http.ResponseWriter, _ *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lists++
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(lookup.TransferList{Data: b.transfers})
}

// TestTransferLookupByMatch: a transfer without a reference is refused
// before anything is sent (ErrEmptyLookupKey); a transfer whose answer is
// lost is keyed by its reference and found in a list that ignores the
// filter, as the element whose meta.reference is its key, though another
// transfer comes first; a reference no transfer has is not found.
func TestTransferLookupByMatch(t *testing.T) {
	b, srv := newBank(t)
	c := client(t, srv.URL)
	ctx := context.Background()
	if _, err := c.CreateTransfer(ctx, lookup.NewTransfer{Amount: 5}); !errors.Is(err, idemrt.ErrEmptyLookupKey) {
		t.Fatalf("CreateTransfer without a reference: %v, want ErrEmptyLookupKey", err)
	}
	a, z := "a", "z"
	if _, err := c.CreateTransfer(ctx, lookup.NewTransfer{Amount: 1, Reference: &a}); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.lose = true
	b.mu.Unlock()
	_, err := c.CreateTransfer(ctx, lookup.NewTransfer{Amount: 26, Reference: &z})
	if !errors.Is(err, idemrt.ErrOutcomeUnknown) || idemrt.KeyOf(err) != "z" {
		t.Fatalf("CreateTransfer with its answer lost: %v (key %q), want ErrOutcomeUnknown keyed z", err, idemrt.KeyOf(err))
	}
	res, err := c.LookupIntent(ctx, "createTransfer", "z")
	var got lookup.Transfer
	if err != nil || !res.Found || json.Unmarshal(res.Body, &got) != nil || got.ID != "tr_z" || got.Amount != 26 {
		t.Fatalf("LookupIntent(z) = %+v (%s), %v; want tr_z", res, res.Body, err)
	}
	if tr, found, err := c.LookupCreateTransfer(ctx, "y"); err != nil || found || tr != nil {
		t.Fatalf("LookupCreateTransfer(y) = %+v, %v, %v; want not found", tr, found, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.transfers) != 2 || b.lists != 2 {
		t.Errorf("the bank executed %d transfers and listed %d times, want 2 and 2", len(b.transfers), b.lists)
	}
}

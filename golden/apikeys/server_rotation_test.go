package apikeys_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/apikeys"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemsrv "github.com/idemgen/idemgen/server"
)

// keys is the SecurityHandler of these tests: "key-1" and "key-2", its
// rotation, are alice's wherever they travel.
type keys struct{}

var _ apikeys.SecurityHandler = keys{}

func principal(c idemsrv.APIKeyCredential) (string, error) {
	if c.Value == "key-1" || c.Value == "key-2" {
		return "alice", nil
	}
	return "", errors.New("unknown key")
}

func (keys) QueryKey(_ context.Context, _ string, c idemsrv.APIKeyCredential) (string, error) {
	return principal(c)
}

func (keys) HeaderKey(_ context.Context, _ string, c idemsrv.APIKeyCredential) (string, error) {
	return principal(c)
}

func (keys) CookieKey(_ context.Context, _ string, c idemsrv.APIKeyCredential) (string, error) {
	return principal(c)
}

// items counts the creates it executes.
type items struct{ executions atomic.Int64 }

func (h *items) CreateItem(_ context.Context, body apikeys.NewItem, _ apikeys.CreateItemParams) (*apikeys.Item, error) {
	n := h.executions.Add(1)
	return &apikeys.Item{ID: fmt.Sprintf("item-%d", n), Name: body.Name}, nil
}

// serveItems runs the generated server for h with a SQLite ledger and
// WithSecurity on 127.0.0.1 and returns its URL.
func serveItems(t *testing.T, h apikeys.Handler) string {
	t.Helper()
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := apikeys.NewServer(h, idemsrv.WithLedger(l), idemsrv.WithSecurity(keys{}))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.StripPrefix("/v1", srv))
	t.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

// createWithKey sends the create keyed k-rot, on shelf, with apiKey where
// in says (query, header or cookie), and returns the status, whether it
// was a replay, and the item's id.
func createWithKey(t *testing.T, url, in, apiKey, shelf string) (int, bool, string) {
	t.Helper()
	target := url + "/items?shelf=" + shelf
	if in == idemsrv.InQuery {
		target += "&api_key=" + apiKey
	}
	req, _ := http.NewRequest("POST", target, strings.NewReader(`{"name":"lamp"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "k-rot")
	switch in {
	case idemsrv.InHeader:
		req.Header.Set("X-API-Key", apiKey)
	case idemsrv.InCookie:
		req.AddCookie(&http.Cookie{Name: "api_session", Value: apiKey})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var item apikeys.Item
	json.Unmarshal(raw, &item)
	return resp.StatusCode, resp.Header.Get("Idempotent-Replayed") == "true", item.ID
}

// TestServerRotatedAPIKeyReplays: an intent's first attempt carries key-1
// and its retry key-2, both alice's, in the query, a header or a cookie.
// The key is a credential, not payload: the retry gets the stored answer
// and the item is created once. (A header or cookie credential joins the
// fingerprint only where something names it, a parameter of the same name
// or the ledger's Config; ledgertest RouteCredentialsLeaveTheFingerprint
// shows those.) The rest of the request still counts: the same key
// on another shelf is 422.
func TestServerRotatedAPIKeyReplays(t *testing.T) {
	for _, in := range []string{idemsrv.InQuery, idemsrv.InHeader, idemsrv.InCookie} {
		t.Run(in, func(t *testing.T) {
			h := &items{}
			url := serveItems(t, h)
			status, _, id := createWithKey(t, url, in, "key-1", "a")
			if status != http.StatusCreated {
				t.Fatalf("first attempt: %d, want 201", status)
			}
			status, replayed, again := createWithKey(t, url, in, "key-2", "a")
			if status != http.StatusCreated || !replayed || again != id {
				t.Errorf("retry with the rotated key: %d, replayed %v, item %q; want the stored 201 of %q", status, replayed, again, id)
			}
			if n := h.executions.Load(); n != 1 {
				t.Errorf("executions %d, want 1", n)
			}
			if status, _, _ := createWithKey(t, url, in, "key-2", "b"); status != http.StatusUnprocessableEntity {
				t.Errorf("the same key on another shelf: %d, want 422", status)
			}
		})
	}
}

package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/oauth"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemoauth "github.com/idemgen/idemgen/runtime/oauth"
)

// bank is a loopback server (127.0.0.1) that is both the token endpoint
// (POST /oauth/token, the document's relative tokenUrl) and the API. It
// issues tokens "tok-1", "tok-2"..., accepts the ones it has not revoked,
// and executes each transfer once per idempotency key.
type bank struct {
	srv *httptest.Server
	mu  sync.Mutex
	// tokenMode is how the token endpoint answers: "" (a token), "500",
	// "badjson" or "redirect" (307 to elsewhere).
	tokenMode string
	// expiresIn is the lifetime of each issued token, by issue (default an
	// hour); release, when set, holds the token endpoint until closed.
	expiresIn map[int]int
	release   chan struct{}
	elsewhere string
	issued    int
	revoked   map[string]bool
	// tokenAuth is the Authorization of each token request, tokenForm its
	// form; apiAuth the Authorization of each API request.
	tokenAuth, tokenForm, apiAuth []string
	keys                          []string
	executions                    map[string]int
}

func newBank(t *testing.T) *bank {
	t.Helper()
	b := &bank{expiresIn: map[int]int{}, revoked: map[string]bool{}, executions: map[string]int{}}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *bank) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/oauth/token" {
		b.token(w, r)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	auth := r.Header.Get("Authorization")
	b.apiAuth = append(b.apiAuth, auth)
	if r.Method == "POST" {
		b.keys = append(b.keys, r.Header.Get("Idempotency-Key"))
	}
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || b.revoked[tok] || !strings.HasPrefix(tok, "tok-") && !strings.HasPrefix(tok, "custom-") {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	switch {
	case r.URL.Path == "/v1/health":
		w.WriteHeader(http.StatusNoContent)
	case r.Method == "POST" && r.URL.Path == "/v1/transfers":
		key := r.Header.Get("Idempotency-Key")
		b.executions[key]++
		writeJSON(w, http.StatusCreated, oauth.Transfer{ID: "t-" + key, Amount: 100})
	case b.elsewhere != "":
		http.Redirect(w, r, b.elsewhere, http.StatusTemporaryRedirect)
	default:
		writeJSON(w, http.StatusOK, oauth.Transfer{ID: strings.TrimPrefix(r.URL.Path, "/v1/transfers/"), Amount: 100})
	}
}

// token answers one token request as tokenMode says.
func (b *bank) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	b.mu.Lock()
	b.tokenAuth = append(b.tokenAuth, r.Header.Get("Authorization"))
	b.tokenForm = append(b.tokenForm, r.PostForm.Encode())
	mode, release := b.tokenMode, b.release
	b.mu.Unlock()
	if release != nil {
		<-release
	}
	switch mode {
	case "500":
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	case "badjson":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"access_token":`))
		return
	case "redirect":
		http.Redirect(w, r, b.elsewhere, http.StatusTemporaryRedirect)
		return
	}
	b.mu.Lock()
	b.issued++
	n := b.issued
	life, ok := b.expiresIn[n]
	if !ok {
		life = 3600
	}
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": fmt.Sprintf("tok-%d", n), "token_type": "bearer", "expires_in": life})
}

// counts returns the number of token and API requests so far.
func (b *bank) counts() (tokens, api int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.tokenAuth), len(b.apiAuth)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// client returns a client of b's API with the client credentials option
// and opts.
func (b *bank) client(t *testing.T, opts ...idemrt.Option) *oauth.Client {
	t.Helper()
	opts = append([]idemrt.Option{oauth.WithClientAuthClientCredentials("app", "s3cret", "transfers.read", "transfers.write")}, opts...)
	c, err := oauth.NewClient(b.srv.URL+"/v1", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConcurrentCallsWithAnExpiredTokenFetchOnce: the cached token is
// expired (its one second of life is inside the expiry margin); 50
// concurrent calls that need a new one cause exactly one token request,
// and every call carries the new token.
func TestConcurrentCallsWithAnExpiredTokenFetchOnce(t *testing.T) {
	b := newBank(t)
	b.expiresIn[1] = 1
	c := b.client(t)
	ctx := context.Background()
	if _, err := c.GetTransfer(ctx, oauth.GetTransferParams{TransferID: "t0"}); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.release = make(chan struct{})
	b.mu.Unlock()
	var wg, started sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			if _, err := c.GetTransfer(ctx, oauth.GetTransferParams{TransferID: fmt.Sprint("t", i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	started.Wait()
	close(b.release)
	wg.Wait()
	tokens, api := b.counts()
	if tokens != 2 {
		t.Fatalf("%d token requests, want 2: the first token, then one for the 50 concurrent calls", tokens)
	}
	for i, auth := range b.apiAuth[1:] {
		if auth != "Bearer tok-2" {
			t.Fatalf("API request %d carried %q, want the new token", i+2, auth)
		}
	}
	if api != 51 {
		t.Fatalf("%d API requests, want 51", api)
	}
}

// TestRevokedTokenRefreshesOnceWithTheSameKey: a keyed POST answered 401
// (its token was revoked) makes one token request and is resent once, with
// the same Idempotency-Key; the transfer executes once. Twenty concurrent
// POSTs refused with that same token share the one new token.
func TestRevokedTokenRefreshesOnceWithTheSameKey(t *testing.T) {
	b := newBank(t)
	c := b.client(t)
	ctx := context.Background()
	if _, err := c.GetTransfer(ctx, oauth.GetTransferParams{TransferID: "t0"}); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.revoked["tok-1"] = true
	b.mu.Unlock()
	body := oauth.TransferRequest{From: "a", To: "b", Amount: 100}
	tr, err := c.CreateTransfer(ctx, body, oauth.CreateTransferParams{IdempotencyKey: "k-1"})
	if err != nil || tr.ID != "t-k-1" {
		t.Fatalf("CreateTransfer: %v, %v", tr, err)
	}
	tokens, api := b.counts()
	if tokens != 2 || api != 3 || b.apiAuth[1] != "Bearer tok-1" || b.apiAuth[2] != "Bearer tok-2" {
		t.Fatalf("%d token requests, API requests with %q; want 2 and [tok-1 tok-1(401) tok-2]", tokens, b.apiAuth)
	}
	if len(b.keys) != 2 || b.keys[0] != "k-1" || b.keys[1] != "k-1" || b.executions["k-1"] != 1 {
		t.Fatalf("keys %q, executions %v; want k-1 on the refused attempt and the resend, one execution", b.keys, b.executions)
	}
	b.mu.Lock()
	b.revoked["tok-2"] = true
	b.mu.Unlock()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.CreateTransfer(ctx, body, oauth.CreateTransferParams{IdempotencyKey: fmt.Sprint("c-", i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if tokens, _ := b.counts(); tokens != 3 {
		t.Fatalf("%d token requests, want 3: one for the 20 calls refused with tok-2", tokens)
	}
	for i := range 20 {
		if n := b.executions[fmt.Sprint("c-", i)]; n != 1 {
			t.Fatalf("key c-%d executed %d times", i, n)
		}
	}
}

// TestTokenEndpointFailureIsAnAuthError: a token endpoint that answers
// 500, answers no JSON, redirects, or refuses the connection ends the call
// with an auth error before anything reaches the API; each call asks the
// token endpoint once (the call's retries never repeat the token request).
func TestTokenEndpointFailureIsAnAuthError(t *testing.T) {
	for _, mode := range []string{"500", "badjson", "redirect", "refused"} {
		t.Run(mode, func(t *testing.T) {
			b := newBank(t)
			other := newBank(t)
			b.tokenMode, b.elsewhere = mode, other.srv.URL+"/oauth/token"
			dials := 0
			var mu sync.Mutex
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				mu.Lock()
				dials++
				mu.Unlock()
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}}
			t.Cleanup(tr.CloseIdleConnections)
			server := b.srv.URL
			if mode == "refused" {
				server = closedURL(t)
			}
			c, err := oauth.NewClient(server+"/v1", oauth.WithClientAuthClientCredentials("app", "s3cret"),
				idemrt.WithHTTPClient(&http.Client{Transport: tr}))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				_, err := c.CreateTransfer(context.Background(), oauth.TransferRequest{Amount: 1}, oauth.CreateTransferParams{})
				if !errors.Is(err, idemrt.ErrUnauthorized) || !errors.Is(err, idemoauth.ErrTokenEndpoint) || len(idemrt.AttemptsOf(err)) != 0 {
					t.Fatalf("call %d: err %v (%d attempts), want an auth error and no attempt", i+1, err, len(idemrt.AttemptsOf(err)))
				}
			}
			tokens, api := b.counts()
			if mode == "refused" {
				tokens = dials
			}
			if tokens != 3 || api != 0 {
				t.Fatalf("%d token requests, %d API requests; want 3 (one per call) and 0", tokens, api)
			}
			if otherTokens, otherAPI := other.counts(); otherTokens+otherAPI != 0 {
				t.Fatalf("the redirect was followed: %d requests elsewhere", otherTokens+otherAPI)
			}
		})
	}
}

// closedURL is the URL of a 127.0.0.1 port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

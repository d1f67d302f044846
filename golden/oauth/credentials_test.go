package oauth_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/oauth2"

	"github.com/idemgen/idemgen/golden/oauth"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemoauth "github.com/idemgen/idemgen/runtime/oauth"
)

// TestCredentialsStayOnTheirHost: the client secret goes to the token
// endpoint only (HTTP basic, with grant_type=client_credentials and the
// scopes); the API never sees it; the token does not follow the API's
// redirect to another host; an operation with `security: []` asks for no
// token and sends none.
func TestCredentialsStayOnTheirHost(t *testing.T) {
	b := newBank(t)
	var mu sync.Mutex
	var elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		writeJSON(w, http.StatusOK, oauth.Transfer{ID: "t9"})
	}))
	defer other.Close()
	b.elsewhere = other.URL + "/v1/transfers/t9"
	c := b.client(t)
	ctx := context.Background()
	if err := c.GetHealth(ctx); err == nil {
		t.Fatal("GetHealth: the bank wants a token for /health, and the document says none is sent: want its 401")
	}
	if tokens, _ := b.counts(); tokens != 0 {
		t.Fatalf("a public operation made %d token requests", tokens)
	}
	if _, err := c.GetTransfer(ctx, oauth.GetTransferParams{TransferID: "t1"}); err != nil {
		t.Fatal(err)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("app:s3cret"))
	form, _ := url.ParseQuery(b.tokenForm[0])
	if b.tokenAuth[0] != basic || form.Get("grant_type") != "client_credentials" || form.Get("scope") != "transfers.read transfers.write" || form.Has("client_secret") {
		t.Fatalf("token request: Authorization %q, form %q", b.tokenAuth[0], b.tokenForm[0])
	}
	for _, a := range append(b.apiAuth, elsewhere...) {
		if strings.Contains(a, "Basic") {
			t.Fatalf("an API request carried the client secret: %q", a)
		}
	}
	if len(elsewhere) != 1 || elsewhere[0] != "" {
		t.Fatalf("the redirect target saw Authorization %q, want one request with none", elsewhere)
	}
}

// countingSource is a TokenSource that issues "custom-1", "custom-2"...
type countingSource struct{ n atomic.Int32 }

func (s *countingSource) Token() (*oauth2.Token, error) {
	return &oauth2.Token{AccessToken: "custom-" + string(rune('0'+s.n.Add(1))), TokenType: "Bearer"}, nil
}

// TestTokenSourceOption: WithClientAuthTokenSource sends a custom source's
// token, caches it, asks the source again once after a 401; a source that
// answers the refused token again (oauth2.StaticTokenSource) ends the call
// with ErrUnauthorized after that one resend; a source's error is an auth
// error with nothing sent.
func TestTokenSourceOption(t *testing.T) {
	b := newBank(t)
	src := &countingSource{}
	c, _ := oauth.NewClient(b.srv.URL+"/v1", oauth.WithClientAuthTokenSource(src))
	ctx := context.Background()
	for range 3 {
		if _, err := c.GetTransfer(ctx, oauth.GetTransferParams{TransferID: "t1"}); err != nil {
			t.Fatal(err)
		}
	}
	b.mu.Lock()
	b.revoked["custom-1"] = true
	b.mu.Unlock()
	if _, err := c.GetTransfer(ctx, oauth.GetTransferParams{TransferID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if n := src.n.Load(); n != 2 || b.apiAuth[4] != "Bearer custom-2" {
		t.Fatalf("source asked %d times, last API request %q; want 2 and custom-2", n, b.apiAuth[4])
	}
	static, _ := oauth.NewClient(b.srv.URL+"/v1", oauth.WithClientAuthTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "custom-1"})))
	_, before := b.counts()
	if _, err := static.GetTransfer(ctx, oauth.GetTransferParams{TransferID: "t1"}); !errors.Is(err, idemrt.ErrUnauthorized) || len(idemrt.AttemptsOf(err)) != 2 {
		t.Fatalf("static revoked token: %v, want ErrUnauthorized after two attempts", err)
	}
	if _, after := b.counts(); after-before != 2 {
		t.Fatalf("%d API requests, want 2", after-before)
	}
	failing, _ := oauth.NewClient(b.srv.URL+"/v1", oauth.WithClientAuthTokenSource(errSource{}))
	if _, err := failing.GetTransfer(ctx, oauth.GetTransferParams{TransferID: "t1"}); !errors.Is(err, idemoauth.ErrTokenEndpoint) || !errors.Is(err, errVault) {
		t.Fatalf("failing source: %v", err)
	}
	if _, after := b.counts(); after-before != 2 {
		t.Fatal("a failing source's call reached the API")
	}
}

var errVault = errors.New("vault sealed")

type errSource struct{}

func (errSource) Token() (*oauth2.Token, error) { return nil, errVault }

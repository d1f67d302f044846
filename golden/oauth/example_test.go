package oauth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/idemgen/idemgen/golden/oauth"
)

// The client fetches a token from the document's token endpoint (here on
// the API's own server: the document writes tokenUrl relative to it) and
// reuses it for every call.
func ExampleWithClientAuthClientCredentials() {
	tokens := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/oauth/token" {
			tokens++
			json.NewEncoder(w).Encode(map[string]any{"access_token": "tok", "token_type": "bearer", "expires_in": 3600})
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(oauth.Transfer{ID: "tr_1", Amount: 100})
	}))
	defer srv.Close()

	c, err := oauth.NewClient(srv.URL+"/v1", oauth.WithClientAuthClientCredentials("my-client", "my-secret", "transfers.write"))
	if err != nil {
		panic(err)
	}
	for range 2 {
		tr, err := c.CreateTransfer(context.Background(), oauth.TransferRequest{From: "a", To: "b", Amount: 100}, oauth.CreateTransferParams{})
		if err != nil {
			panic(err)
		}
		fmt.Println(tr.ID, tr.Amount)
	}
	fmt.Println("token requests:", tokens)
	// Output:
	// tr_1 100
	// tr_1 100
	// token requests: 1
}

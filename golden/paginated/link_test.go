package paginated_test

// A list whose response declares a Link header beside page-number
// parameters (Kratos's listIdentitySessions): the iteration follows the
// Link header, whose page tokens are opaque, and never counts pages.

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/paginated"
)

// TestLinkDeclaredBesidePageNumbers: every session is listed once, in three
// requests, the second and third carrying the opaque page_token the server
// put in its Link header; a page number the server never gave (page=2) is
// answered 400, and no request sends one.
func TestLinkDeclaredBesidePageNumbers(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	token := func(from int) string {
		return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("keyset:%s", ids[from])))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		q := r.URL.Query()
		if q.Has("page") {
			http.Error(w, `{"error":"page is an opaque token; follow the Link header"}`, http.StatusBadRequest)
			return
		}
		from := 0
		if tok := q.Get("page_token"); tok != "" {
			from = slices.IndexFunc(ids, func(id string) bool { return token(slices.Index(ids, id)) == tok })
			if from < 0 {
				http.Error(w, `{"error":"unknown page_token"}`, http.StatusBadRequest)
				return
			}
		}
		to := min(from+3, len(ids))
		if to < len(ids) {
			w.Header().Set("Link", fmt.Sprintf(`</sessions?page_size=3&page_token=%s>; rel="next"`, token(to)))
		}
		writeJSON(w, map[string]any{"sessions": ids[from:to]})
	}))
	t.Cleanup(srv.Close)
	c, err := paginated.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(c.ListSessionsIter(context.Background(), paginated.ListSessionsParams{}), func(s string) string { return s })
	if err != nil || !slices.Equal(got, ids) {
		t.Fatalf("sessions %v, %v; want %v", got, err, ids)
	}
	want := []string{"", "page_size=3&page_token=" + token(3), "page_size=3&page_token=" + token(6)}
	if !slices.Equal(queries, want) {
		t.Fatalf("queries %q, want %q", queries, want)
	}
}

package swagger2nohost_test

// A Swagger 2.0 document without a host: the client adds the basePath to a
// server URL given without a path, and uses one with a path as it is.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/idemgen/idemgen/golden/swagger2nohost"
	_ "github.com/idemgen/idemgen/internal/testutil"
)

func TestBasePathWithoutHost(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v2/things/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + r.PathValue("id") + `"}`))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	for _, base := range []string{ts.URL, ts.URL + "/", ts.URL + "/api/v2"} {
		c, err := swagger2nohost.NewClient(base)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.GetThing(context.Background(), swagger2nohost.GetThingParams{ID: "t1"})
		if err != nil || got.ID != "t1" {
			t.Errorf("NewClient(%q): %+v, %v", base, got, err)
		}
	}
}

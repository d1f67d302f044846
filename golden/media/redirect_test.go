package media_test

// A declared 3xx is an answer, not a hop: StartLogin declares 302 and a
// default error, so the 302 comes back as the result (status and Location)
// without being followed or decoded, and default stays the error model.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	idemrt "github.com/idemgen/idemgen/runtime"
)

func TestDeclaredRedirectIsTheResult(t *testing.T) {
	var pageHits atomic.Int32
	fail := false
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		if fail {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"title":"no"}`))
			return
		}
		http.Redirect(w, r, "/login-page", http.StatusFound)
	})
	mux.HandleFunc("GET /login-page", func(w http.ResponseWriter, _ *http.Request) {
		pageHits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>sign in</html>"))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()
	c, err := media.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.StartLogin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusFound || res.Location != "/login-page" || pageHits.Load() != 0 {
		t.Fatalf("result %+v, login page fetched %d times; want 302 to /login-page, not followed", res, pageHits.Load())
	}
	fail = true
	_, err = c.StartLogin(context.Background())
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest {
		t.Fatalf("err = %v, want a StatusError 400", err)
	}
	if p, ok := se.Model.(*media.Problem); !ok || p.Title == nil || *p.Title != "no" {
		t.Fatalf("model %#v, want the default response's Problem", se.Model)
	}
}

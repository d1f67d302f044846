package media_test

// A declared 3xx is an answer, not a hop: StartLogin declares 302 and a
// default error, so the 302 comes back as the result (status and Location)
// without being followed or decoded, and default stays the error model.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
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

// TestDeclaredRedirectCarriesItsBody: GetExportLink declares a 303 with a
// JSON body beside a 200 and a bodiless 304. The generated server writes
// the 303's body with its Content-Type, and the generated client decodes it
// into Body303 without following Location; the 304 comes back empty.
func TestDeclaredRedirectCarriesItsBody(t *testing.T) {
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Add(1) }))
	defer target.Close()
	h := &mediaEcho{}
	srv, err := media.NewServer(h, idemsrv.WithoutLedger())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c, err := media.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, params := context.Background(), media.GetExportLinkParams{ID: "e1"}

	link := target.URL + "/e1.csv"
	h.link = &media.GetExportLinkResult{StatusCode: http.StatusSeeOther, Location: link, Body303: media.ExportLink{URL: link}}
	res, err := c.GetExportLink(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusSeeOther || res.Body303.URL != link || res.Location != link || followed.Load() != 0 {
		t.Fatalf("result %+v, target fetched %d times; want 303 with the link in Body303 and Location, not followed", res, followed.Load())
	}
	raw := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := raw.Get(ts.URL + "/exports/e1/link")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusSeeOther || ct != "application/json" || string(body) != `{"url":"`+link+`"}` {
		t.Errorf("on the wire: %d %q %s; want 303, application/json and the link", resp.StatusCode, ct, body)
	}

	h.link = &media.GetExportLinkResult{StatusCode: http.StatusNotModified}
	if res, err = c.GetExportLink(ctx, params); err != nil || res.StatusCode != http.StatusNotModified || res.Body303.URL != "" || res.Body.State != "" {
		t.Errorf("304: %+v, %v; want the status alone", res, err)
	}
	h.link = &media.GetExportLinkResult{Body: media.ExportState{State: "running"}}
	if res, err = c.GetExportLink(ctx, params); err != nil || res.StatusCode != http.StatusOK || res.Body.State != "running" {
		t.Errorf("200: %+v, %v; want the state in Body", res, err)
	}
}

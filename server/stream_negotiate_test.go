package idemsrv

import (
	"net/http"
	"net/http/httptest"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
)

func TestWantsStream(t *testing.T) {
	cases := map[string]bool{
		"text/event-stream":                         true,
		"Text/Event-Stream; charset=utf-8":          true,
		"application/json, text/event-stream":       true,
		"text/event-stream;q=0.5, application/json": false,
		"text/event-stream;q=0":                     false,
		"application/json":                          false,
		"":                                          false,
		"*/*":                                       false,
		"text/*":                                    false,
		"application/json;q=0.2, text/event-stream": true,
	}
	for accept, want := range cases {
		r := httptest.NewRequest("POST", "/", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if got := wantsStream(r, "text/event-stream"); got != want {
			t.Errorf("Accept %q: stream %v, want %v", accept, got, want)
		}
	}
}

// TestHandleEither: one pattern, two answers chosen by Accept; the stream
// form bypasses the ledger like every stream, the plain one keeps the
// route's checks (here a required precondition).
func TestHandleEither(t *testing.T) {
	e := newTestEngine(t)
	rt := Route{Op: &idemrt.Operation{ID: "complete", Method: "POST", Path: "/complete"}, Preconditions: []string{"If-Match"}}
	srt := rt.WithStream(idemrt.FramingSSE, "text/event-stream")
	if srt.Stream == nil || rt.Stream != nil || srt.Stream.MediaType != "text/event-stream" {
		t.Fatalf("WithStream: %+v / %+v", srt.Stream, rt.Stream)
	}
	var got []string
	plain := func(w http.ResponseWriter, r *http.Request) { got = append(got, "plain") }
	stream := func(w http.ResponseWriter, r *http.Request) { got = append(got, "stream") }
	if err := e.HandleEither(rt, plain, srt, stream); err != nil {
		t.Fatal(err)
	}
	for _, accept := range []string{"application/json", "text/event-stream"} {
		r := httptest.NewRequest("POST", "/complete", nil)
		r.Header.Set("Accept", accept)
		r.Header.Set("If-Match", `"v1"`)
		e.Root().ServeHTTP(httptest.NewRecorder(), r)
	}
	r := httptest.NewRequest("POST", "/complete", nil)
	w := httptest.NewRecorder()
	e.Root().ServeHTTP(w, r)
	if len(got) != 2 || got[0] != "plain" || got[1] != "stream" || w.Code != http.StatusPreconditionRequired {
		t.Fatalf("served %v, then %d", got, w.Code)
	}
}

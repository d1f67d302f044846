package idemsrv

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
)

func TestTopLevelTrue(t *testing.T) {
	cases := map[string]bool{
		`{"stream":true}`: true,
		` { "a" : [1,{"stream":false}], "stream" : true } `: true,
		`{"stream":false}`:               false,
		`{"stream":"true"}`:              false,
		`{"stream":null}`:                false,
		`{"x":{"stream":true}}`:          false,
		`{"stream":true,"stream":false}`: false,
		`{"stream":false,"stream":true}`: true,
		`[{"stream":true}]`:              false,
		`{"stream":true`:                 false,
		``:                               false,
	}
	for b, want := range cases {
		if got := topLevelTrue([]byte(b), "stream"); got != want {
			t.Errorf("%s: %v, want %v", b, got, want)
		}
	}
}

// TestHandleEitherStreamSwitch: with a switch, a JSON body's true member
// picks the stream form whatever Accept says; the body reaches the form
// whole.
func TestHandleEitherStreamSwitch(t *testing.T) {
	e := newTestEngine(t)
	rt := Route{Op: &idemrt.Operation{ID: "complete", Method: "POST", Path: "/complete"}}
	srt := rt.WithStream(idemrt.FramingSSE, "text/event-stream").WithStreamSwitch("stream")
	if srt.Stream.Switch != "stream" {
		t.Fatalf("WithStreamSwitch: %+v", srt.Stream)
	}
	var got []string
	record := func(form string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			buf := make([]byte, 256)
			n, _ := r.Body.Read(buf)
			got = append(got, form+" "+string(buf[:n]))
		}
	}
	if err := e.HandleEither(rt, record("plain"), srt, record("stream")); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"stream":true}`, `{"stream":false}`} {
		r := httptest.NewRequest("POST", "/complete", strings.NewReader(body))
		r.Header.Set("Accept", "application/json")
		r.Header.Set("Content-Type", "application/json")
		e.Root().ServeHTTP(httptest.NewRecorder(), r)
	}
	if len(got) != 2 || got[0] != `stream {"stream":true}` || got[1] != `plain {"stream":false}` {
		t.Fatalf("served %q", got)
	}
}

package idemsrv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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

// TestStreamSwitchIsBounded: a body past WithMaxBody, or nested past the
// depth limit, is not taken as asking for the stream, and the plain form
// still receives every byte of it (its decoder then refuses it).
func TestStreamSwitchIsBounded(t *testing.T) {
	e := newTestEngine(t, WithMaxBody(64), WithBodyLimits(4, time.Second))
	rt := Route{Op: &idemrt.Operation{ID: "complete", Method: "POST", Path: "/complete"}}
	srt := rt.WithStream(idemrt.FramingSSE, "text/event-stream").WithStreamSwitch("stream")
	var forms []string
	var sizes []int
	record := func(form string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			forms, sizes = append(forms, form), append(sizes, len(b))
		}
	}
	if err := e.HandleEither(rt, record("plain"), srt, record("stream")); err != nil {
		t.Fatal(err)
	}
	big := `{"stream":true,"pad":"` + strings.Repeat("x", 200) + `"}`
	deep := `{"stream":true,"a":` + strings.Repeat("[", 10) + strings.Repeat("]", 10) + `}`
	for _, body := range []string{big, deep} {
		r := httptest.NewRequest("POST", "/complete", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		e.Root().ServeHTTP(httptest.NewRecorder(), r)
	}
	if len(forms) != 2 || forms[0] != "plain" || forms[1] != "plain" || sizes[0] != len(big) || sizes[1] != len(deep) {
		t.Fatalf("served %v with %v bytes; want the plain form with the whole bodies (%d, %d)", forms, sizes, len(big), len(deep))
	}
}

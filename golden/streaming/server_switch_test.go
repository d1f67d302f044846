package streaming_test

// Behaviour test of the body's stream switch: a client that asks for the
// stream with the body's "stream": true, as OpenAI's SDKs do, and Accept:
// application/json gets the stream form. Hand-written; the golden test
// leaves files without the generated header alone.

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/golden/streaming"
	idemsrv "github.com/idemgen/idemgen/server"
)

// postCompletion sends body to POST /completions with accept and returns
// the answer's content type and body.
func postCompletion(t *testing.T, url, accept, body string) (string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Get("Content-Type"), string(b)
}

func TestServerStreamSwitchInTheBody(t *testing.T) {
	h := &feed{}
	srv, err := streaming.NewServer(h)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	cases := []struct {
		accept, body, media string
	}{
		{"application/json", `{"prompt":"a","stream":true}`, "text/event-stream"},
		{"application/json", `{"stream" : true, "prompt":"b"}`, "text/event-stream"},
		{"application/json", `{"prompt":"c","stream":false}`, "application/json"},
		{"application/json", `{"prompt":"d","stream":null}`, "application/json"},
		{"application/json", `{"prompt":"e","meta":{"stream":true}}`, "application/json"},
		{"text/event-stream", `{"prompt":"f"}`, "text/event-stream"},
	}
	for _, c := range cases {
		media, body := postCompletion(t, ts.URL, c.accept, c.body)
		if !strings.HasPrefix(media, c.media) {
			t.Errorf("%s with Accept %s: answered %s %q, want %s", c.body, c.accept, media, body, c.media)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// The handlers decoded the whole body the switch was read from.
	if len(h.prompts) != len(cases) || h.prompts[1].Prompt != "b" || h.prompts[4].Prompt != "e" {
		t.Errorf("the handlers saw %+v", h.prompts)
	}
}

// TestServerStreamSwitchBounded: a body over the size bound is not read
// for the switch past the bound; the decoder refuses it as it refuses any.
func TestServerStreamSwitchBounded(t *testing.T) {
	srv, err := streaming.NewServer(&feed{}, idemsrv.WithMaxBody(64))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	big := `{"prompt":"` + strings.Repeat("x", 100) + `","stream":true}`
	if media, body := postCompletion(t, ts.URL, "application/json", big); !strings.HasPrefix(media, "application/problem+json") || !strings.Contains(body, "413") {
		t.Errorf("answered %s %q, want a 413 problem", media, body)
	}
}

package idemsrv

import (
	"context"
	"net/http/httptest"
	"testing"
)

// TestNegotiate: the offered type the Accept header ranks highest (q, then
// the spec's order), wildcards included; none acceptable is refused.
func TestNegotiate(t *testing.T) {
	offered := []string{"application/json", "text/csv", "application/pdf"}
	for _, c := range []struct {
		accept string
		want   string
		ok     bool
	}{
		{"", "application/json", true},
		{"application/json, text/csv, application/pdf", "application/json", true},
		{"application/pdf", "application/pdf", true},
		{"text/*", "text/csv", true},
		{"application/json;q=0.5, text/csv", "text/csv", true},
		{"*/*;q=0.1, application/pdf;q=0.9", "application/pdf", true},
		{"Application/PDF; charset=x", "application/pdf", true},
		{"application/json;q=0, */*", "text/csv", true},
		{"image/png", "", false},
		{"application/json;q=0", "", false},
	} {
		r := httptest.NewRequest("GET", "/r", nil)
		if c.accept != "" {
			r.Header.Set("Accept", c.accept)
		}
		got, ok := Negotiate(r, offered)
		if got != c.want || ok != c.ok {
			t.Errorf("Accept %q: %q %v, want %q %v", c.accept, got, ok, c.want, c.ok)
		}
	}
}

// TestAnswerMedia: the handler's own type wins when the request accepts it;
// an unacceptable one is 406, an undeclared one 500; none set takes the
// negotiated one. The negotiated type reaches the handler's context.
func TestAnswerMedia(t *testing.T) {
	e, _ := New(nil)
	offered := []string{"application/json", "text/csv"}
	for _, c := range []struct {
		accept, handler, want string
		status                int
	}{
		{"text/csv", "", "text/csv", 0},
		{"*/*", "text/csv", "text/csv", 0},
		{"application/json", "text/csv", "", 406},
		{"*/*", "image/png", "", 500},
	} {
		r := httptest.NewRequest("GET", "/r", nil)
		r.Header.Set("Accept", c.accept)
		w := httptest.NewRecorder()
		got, ok := e.AnswerMedia(w, r, c.handler, offered)
		if got != c.want || ok != (c.status == 0) || (c.status != 0 && w.Code != c.status) {
			t.Errorf("Accept %q, handler %q: %q %v %d, want %q %d", c.accept, c.handler, got, ok, w.Code, c.want, c.status)
		}
	}
	ctx := WithMediaType(context.Background(), "text/csv")
	if MediaType(ctx) != "text/csv" || MediaType(context.Background()) != "" {
		t.Error("MediaType does not read what WithMediaType stored")
	}
}

// TestWriteMedia: the body of the picked type is written as that type.
func TestWriteMedia(t *testing.T) {
	e, _ := New(nil)
	bodies := []Media{{Types: []string{"application/vnd.r+json"}, JSON: true, Value: map[string]int{"total": 3}},
		{Types: []string{"text/csv", "text/plain"}, Value: "a,b"}, {Types: []string{"application/pdf"}, Value: []byte("%PDF")}}
	for _, c := range []struct{ accept, chosen, ct, body string }{
		{"", "", "application/vnd.r+json", `{"total":3}`},
		{"text/plain", "", "text/plain", "a,b"},
		{"*/*", "application/pdf", "application/pdf", "%PDF"},
	} {
		r := httptest.NewRequest("GET", "/r", nil)
		if c.accept != "" {
			r.Header.Set("Accept", c.accept)
		}
		w := httptest.NewRecorder()
		e.WriteMedia(w, r, 200, c.chosen, bodies...)
		if w.Code != 200 || w.Header().Get("Content-Type") != c.ct || w.Body.String() != c.body {
			t.Errorf("Accept %q chosen %q: %d %q %q, want %q %q", c.accept, c.chosen, w.Code, w.Header().Get("Content-Type"), w.Body, c.ct, c.body)
		}
	}
}

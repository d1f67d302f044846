package runtime

import (
	"context"
	"errors"
	"github.com/idemgen/idemgen/runtime/internal/shared"
	"io"
	"net/http"
	"strings"
	"testing"
)

type cat struct {
	Name  string `json:"name"`
	Lives int    `json:"lives"`
}

func newResp(status int, ct, body string) *http.Response {
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

func TestDecoders(t *testing.T) {
	var c cat
	if err := DecodeJSON(newResp(200, "application/json", `{"name":"Tom","lives":3}`), &c); err != nil || c.Lives != 3 {
		t.Fatalf("DecodeJSON: %v %+v", err, c)
	}
	if err := DecodeJSON(newResp(204, "", ""), &c); err != nil {
		t.Errorf("empty body: %v", err)
	}
	if err := DecodeJSON(newResp(200, "text/html", "<html>"), &c); err == nil || !strings.Contains(err.Error(), "text/html") {
		t.Errorf("garbage: %v", err)
	}
	if s, err := DecodeText(newResp(200, "text/plain", "hi")); s != "hi" || err != nil {
		t.Errorf("DecodeText = %q %v", s, err)
	}
	if !shared.IsJSON("application/problem+json; charset=utf-8") || shared.IsJSON("text/plain") {
		t.Error("IsJSON")
	}
}

func TestErrorModelFillsOnlyDeclaredJSONModels(t *testing.T) {
	models := func(status int) any {
		if status == 404 {
			return new(cat)
		}
		return nil
	}
	se := &StatusError{StatusCode: 404, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"name":"gone"}`)}
	err := ErrorModel(se, models)
	if m, ok := se.Model.(*cat); err != se || !ok || m.Name != "gone" {
		t.Fatalf("Model = %#v", se.Model)
	}
	other := &StatusError{StatusCode: 500, Body: []byte(`{}`)}
	if ErrorModel(other, models); other.Model != nil {
		t.Error("an undeclared status got a model")
	}
	html := &StatusError{StatusCode: 404, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(`<p>`)}
	if ErrorModel(html, models); html.Model != nil {
		t.Error("a non-JSON body got a model")
	}
	plain := errors.New("x")
	if ErrorModel(plain, models) != plain {
		t.Error("a non-status error changed")
	}
}

// TestDecodeErrorNamesOnlyASentKey: a decode error's message names the
// idempotency key only when the call sent one (a keyed operation); a GET's
// names none, though KeyOf still gives the key its records carry.
func TestDecodeErrorNamesOnlyASentKey(t *testing.T) {
	for _, tc := range []struct {
		op     *Operation
		method string
		named  bool
	}{{&idempotentOp, "GET", false}, {&keyedOp, "POST", true}} {
		d := &fakeDoer{script: []step{{status: 200, body: "{not json", wrote: 1}}}
		resp, err := newTestRunner(d, newFakeClock()).Do(context.Background(), tc.op,
			&Request{Method: tc.method, URL: mustURL(t, "http://api.test/things")})
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		err = DecodeJSON(resp, &v)
		if !errors.Is(err, ErrDecode) || KeyOf(err) == "" {
			t.Fatalf("%s: %v, key %q", tc.method, err, KeyOf(err))
		}
		if got := strings.Contains(err.Error(), "idempotency key"); got != tc.named {
			t.Errorf("%s: %q names a key: %v, want %v", tc.method, err, got, tc.named)
		}
	}
}

// scriptText is a named string type, as a generated model of a string
// schema is (Kratos's webAuthnJavaScript).
type scriptText string

// TestDecodeJSONTakesTextForAStringSchema: a success declared as a JSON
// string but answered with a text/* type (Kratos sends its WebAuthn script
// as text/javascript) is the text itself; a JSON string answered as text
// still decodes as JSON, and a text answer to any other schema still fails.
func TestDecodeJSONTakesTextForAStringSchema(t *testing.T) {
	const js = "/* webauthn */ (function () { window.x = 1 })()"
	var s scriptText
	if err := DecodeJSON(newResp(200, "text/javascript; charset=UTF-8", js), &s); err != nil || s != js {
		t.Fatalf("text/javascript into a string: %q, %v", s, err)
	}
	var plain string
	if err := DecodeJSON(newResp(200, "text/plain", `"quoted"`), &plain); err != nil || plain != "quoted" {
		t.Errorf("a JSON string sent as text/plain: %q, %v", plain, err)
	}
	var opt *string
	if err := DecodeJSON(newResp(200, "text/plain", "ok then"), &opt); err != nil || opt == nil || *opt != "ok then" {
		t.Errorf("text into *string: %v, %v", opt, err)
	}
	var c cat
	if err := DecodeJSON(newResp(200, "text/plain", "Tom"), &c); err == nil {
		t.Errorf("text into an object: %v", err)
	}
	var raw string
	if err := DecodeJSON(newResp(200, "application/octet-stream", "abc"), &raw); err == nil {
		t.Errorf("bytes into a string decoded: %q", raw)
	}
}

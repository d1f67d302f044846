package idemsrv

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/wire"
)

// keeper is shaped like a generated object model: it keeps the members its
// schema does not declare.
type keeper struct {
	Name string `json:"name"`

	unknownMembers wire.Unknown
}

func (o keeper) UnknownMembers() map[string]json.RawMessage { return o.unknownMembers.Members() }

func (o *keeper) SetUnknownMembers(m map[string]json.RawMessage) {
	o.unknownMembers = wire.NewUnknown(m)
}

// TestJSONKeepsUnknownMembers: the server decodes and encodes bodies with
// the runtime's codec, as the generated client does, so a member the
// server's document does not declare (a client a release ahead) reaches
// the handler's model and goes back out with it.
func TestJSONKeepsUnknownMembers(t *testing.T) {
	e, _ := New(nil)
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"name":"a","extra":{"x":[1,2]}}`))
	r.Header.Set("Content-Type", "application/json")
	var got keeper
	d := e.Decode(httptest.NewRecorder(), r)
	d.JSON(&got, true)
	if d.Failed() {
		t.Fatal(d.err)
	}
	if x := string(got.UnknownMembers()["extra"]); got.Name != "a" || x != `{"x":[1,2]}` {
		t.Fatalf("decoded name %q, extra %q; want a and {\"x\":[1,2]}", got.Name, x)
	}
	w := httptest.NewRecorder()
	WriteJSON(w, 200, &got)
	if want := `{"name":"a","extra":{"x":[1,2]}}`; w.Body.String() != want {
		t.Fatalf("encoded %s, want %s", w.Body.String(), want)
	}
}

// TestJSONDeeperThanTheRuntimeDecodes: a bound above the runtime codec's
// own depth limit still answers a too deep body 400, naming the depth.
func TestJSONDeeperThanTheRuntimeDecodes(t *testing.T) {
	e, _ := New(nil, WithBodyLimits(1000, 0))
	body := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	w := httptest.NewRecorder()
	var v any
	d := e.Decode(w, httptest.NewRequest("POST", "/", strings.NewReader(body)))
	d.JSON(&v, true)
	if !d.Failed() || w.Code != 400 || !strings.Contains(w.Body.String(), "nested deeper than 128 levels") {
		t.Fatalf("answer %d %s, want 400 naming the depth", w.Code, w.Body.String())
	}
}

package idemsrv

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

// TestFormObjectLeavesOtherParameters: an exploded form object whose type
// is a map (openai's metadata: key1=v) receives the query pairs no other
// parameter of the operation, and no query credential, reads; whatever
// the order the parameters are decoded in.
func TestFormObjectLeavesOtherParameters(t *testing.T) {
	type listParams struct {
		After    string
		Metadata map[string]string
		Details  map[string]string
		Limit    *int
	}
	var got listParams
	e, _ := New(nil)
	serve := func(w http.ResponseWriter, r *http.Request) {
		d := e.Decode(w, r)
		d.Query(wire.Param{Name: "after", Style: wire.StyleForm, Explode: true}, &got.After)
		d.Query(wire.Param{Name: "metadata", Style: wire.StyleForm, Explode: true}, &got.Metadata)
		d.Query(wire.Param{Name: "details", Style: wire.StyleDeepObject, Explode: true}, &got.Details)
		d.Query(wire.Param{Name: "limit", Style: wire.StyleForm, Explode: true}, &got.Limit)
		if !d.Failed() {
			w.WriteHeader(204)
		}
	}
	rt := Route{Op: &idemrt.Operation{ID: "list", Method: "GET", Path: "/chats"}, Credentials: []Credential{{In: "query", Name: "api_key"}}}
	if err := e.Handle(rt, serve); err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	e.Root().ServeHTTP(w, httptest.NewRequest("GET", "/chats?after=c1&key1=v1&details[city]=Lyon&limit=5&api_key=secret&key2=v2", nil))
	if w.Code != 204 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	five := 5
	want := listParams{After: "c1", Metadata: map[string]string{"key1": "v1", "key2": "v2"}, Details: map[string]string{"city": "Lyon"}, Limit: &five}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}

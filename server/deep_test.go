package idemsrv

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

type taxID struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type details struct {
	City   string  `json:"city,omitempty"`
	TaxIDs []taxID `json:"tax_ids,omitempty"`
}

// TestDeepObjectListsOfObjects: a deepObject list of objects, on its own
// (lines[0][status]=a) or inside an object (details[tax_ids][0][type]=x),
// decodes back to the objects the client encoded.
func TestDeepObjectListsOfObjects(t *testing.T) {
	type deepParams struct {
		Details *details
		Lines   []filter
	}
	min := 2
	sent := deepParams{
		Details: &details{City: "Lyon", TaxIDs: []taxID{{Type: "eu_vat", Value: "FR1"}, {Type: "us_ein", Value: "12-3"}}},
		Lines:   []filter{{Status: "paid", Min: &min}, {Customer: "c[1]"}},
	}
	server, _ := url.Parse("http://127.0.0.1")
	b := wire.NewBuilder(server, "GET", "/search")
	b.Query(wire.Param{Name: "details", Style: wire.StyleDeepObject, Explode: true}, sent.Details)
	b.Query(wire.Param{Name: "lines", Style: wire.StyleDeepObject, Explode: true}, sent.Lines)
	req, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := New(nil)
	var got deepParams
	d := e.Decode(httptest.NewRecorder(), httptest.NewRequest("GET", req.URL.String(), nil))
	d.Query(wire.Param{Name: "details", Style: wire.StyleDeepObject, Explode: true}, &got.Details)
	d.Query(wire.Param{Name: "lines", Style: wire.StyleDeepObject, Explode: true}, &got.Lines)
	if d.err != nil {
		t.Fatalf("decode: %v (url %s)", d.err, req.URL)
	}
	if !reflect.DeepEqual(got, sent) {
		t.Errorf("decoded %+v %+v, want %+v %+v (url %s)", *got.Details, got.Lines, *sent.Details, sent.Lines, req.URL)
	}
}

// intOrString is a union of an integer and a string the way the generator
// writes one: variant fields without JSON names, its own JSON methods.
type intOrString struct {
	Integer *int64
	String  *string
}

func (u intOrString) MarshalJSON() ([]byte, error) {
	if u.Integer != nil {
		return json.Marshal(*u.Integer)
	}
	return json.Marshal(u.String)
}

func (u *intOrString) UnmarshalJSON(b []byte) error {
	var n int64
	if json.Unmarshal(b, &n) == nil {
		u.Integer = &n
		return nil
	}
	return json.Unmarshal(b, &u.String)
}

// TestScalarUnionParameters: a union of scalars is sent as its one value
// (workflow_id=42, sku_ids=abc) and decodes back to the same variant.
func TestScalarUnionParameters(t *testing.T) {
	n, s := int64(42), "deploy.yml"
	for _, sent := range []intOrString{{Integer: &n}, {String: &s}} {
		server, _ := url.Parse("http://127.0.0.1")
		b := wire.NewBuilder(server, "GET", "/workflows/{id}")
		b.Path(wire.Param{Name: "id", Style: wire.StyleSimple}, sent)
		b.Query(wire.Param{Name: "q", Style: wire.StyleForm, Explode: true}, &sent)
		req, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		e, _ := New(nil)
		var path intOrString
		var query *intOrString
		var derr error
		rt := Route{Op: &idemrt.Operation{ID: "getWorkflow", Method: "GET", Path: "/workflows/{id}"}}
		if err := e.Handle(rt, func(w http.ResponseWriter, r *http.Request) {
			d := e.Decode(w, r)
			d.Path(wire.Param{Name: "id", Style: wire.StyleSimple}, 0, &path)
			d.Query(wire.Param{Name: "q", Style: wire.StyleForm, Explode: true}, &query)
			derr = d.err
		}); err != nil {
			t.Fatal(err)
		}
		e.Root().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", req.URL.String(), nil))
		if derr != nil {
			t.Fatalf("decode: %v (url %s)", derr, req.URL)
		}
		if !reflect.DeepEqual(path, sent) || query == nil || !reflect.DeepEqual(*query, sent) {
			t.Errorf("decoded %+v and %+v, want %+v (url %s)", path, query, sent, req.URL)
		}
	}
}

// TestDeepObjectScalar: a deepObject parameter whose value is a scalar
// (stripe's subscription_billing_cycle_anchor, a union of "now" and a
// timestamp) is sent as name=value and decodes back.
func TestDeepObjectScalar(t *testing.T) {
	n, s := int64(1700000000), "now"
	for _, sent := range []intOrString{{Integer: &n}, {String: &s}} {
		var got *intOrString
		raw, err := roundTripQuery(t, wire.Param{Name: "anchor", Style: wire.StyleDeepObject, Explode: true}, &sent, &got)
		if err != nil || got == nil || !reflect.DeepEqual(*got, sent) {
			t.Errorf("query %s decoded %+v (%v), want %+v", raw, got, err, sent)
		}
	}
}

// roundTripQuery sends sent as the query parameter p with the client's
// builder and decodes it into dst; it returns the query string.
func roundTripQuery(t *testing.T, p wire.Param, sent, dst any) (string, error) {
	t.Helper()
	server, _ := url.Parse("http://127.0.0.1")
	b := wire.NewBuilder(server, "GET", "/items")
	b.Query(p, sent)
	req, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := New(nil)
	d := e.Decode(httptest.NewRecorder(), httptest.NewRequest("GET", req.URL.String(), nil))
	d.Query(p, dst)
	return req.URL.RawQuery, d.err
}

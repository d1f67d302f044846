package idemsrv

import (
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

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

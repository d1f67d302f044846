// Package codecs compares the JSON libraries the runtime could use, on the
// overhead benchmark's order (idemgen's generated Order and NewOrder): the
// measurement behind runtime/internal/jsoncodec's choice (docs/benchmarks.md,
// "Per call"). Run:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./codecs/ | go run ./cmd/benchratio -floor encoding-json
package codecs

import (
	"encoding/json"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	goccy "github.com/goccy/go-json"
	segjson "github.com/segmentio/encoding/json"

	"github.com/idemgen/idemgen/bench/clients/idemgen"
	"github.com/idemgen/idemgen/bench/internal/fixtures"
	_ "github.com/idemgen/idemgen/internal/testutil"
)

// orderJSON is the overhead benchmark's answer (bench/overhead).
const orderJSON = fixtures.OrderJSON

var note = "leave at the door"

var newOrder = idemgen.NewOrder{CustomerID: "cus_1842", Items: []idemgen.LineItem{
	{SKU: "SKU-1001", Quantity: 2, UnitPrice: 1299},
	{SKU: "SKU-2040", Quantity: 1, UnitPrice: 4999},
	{SKU: "SKU-3307", Quantity: 5, UnitPrice: 250},
}, Note: &note}

// v1Options make go-json-experiment decode and encode as encoding/json
// does (case-insensitive names, duplicate names allowed, and the rest).
var v1Options = jsonv1.DefaultOptionsV1()

type codec struct {
	name      string
	unmarshal func([]byte, any) error
	marshal   func(any) ([]byte, error)
}

var codecs = []codec{
	{"encoding-json", json.Unmarshal, json.Marshal},
	{"json-v2-v1options", func(b []byte, v any) error { return jsonv2.Unmarshal(b, v, v1Options) },
		func(v any) ([]byte, error) { return jsonv2.Marshal(v, v1Options) }},
	{"json-v2", func(b []byte, v any) error { return jsonv2.Unmarshal(b, v) },
		func(v any) ([]byte, error) { return jsonv2.Marshal(v) }},
	{"goccy", goccy.Unmarshal, goccy.Marshal},
	{"segmentio", segjson.Unmarshal, segjson.Marshal},
}

// BenchmarkDecodeOrder decodes the 400-byte order into idemgen's Order.
func BenchmarkDecodeOrder(b *testing.B) {
	in := []byte(orderJSON)
	for _, c := range codecs {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o := new(idemgen.Order)
				if err := c.unmarshal(in, o); err != nil || o.Total != 8847 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncodeNewOrder encodes the request body of CreateOrder.
func BenchmarkEncodeNewOrder(b *testing.B) {
	for _, c := range codecs {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.marshal(newOrder); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOmitzero: generated models mark Nullable fields omitzero; a codec
// that ignores the option sends null for every absent member.
func TestOmitzero(t *testing.T) {
	type body struct {
		N *int `json:"n,omitzero"`
	}
	for _, c := range codecs {
		b, err := c.marshal(body{})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got != "{}" {
			t.Logf("%s ignores omitzero: %s", c.name, got)
		}
	}
}

//go:build !idemgen_stdjson

package jsoncodec

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"testing"

	json "github.com/goccy/go-json"
)

// TestDisallowUnknownFlag: the flag fastUnmarshalKnown sets is the one the
// library's Decoder.DisallowUnknownFields sets (read from the Decoder, whose
// option is not exported), so an upgrade that moves it fails here.
func TestDisallowUnknownFlag(t *testing.T) {
	plain := json.NewDecoder(bytes.NewReader(nil))
	strict := json.NewDecoder(bytes.NewReader(nil))
	strict.DisallowUnknownFields()
	flags := func(d *json.Decoder) uint64 {
		return reflect.ValueOf(d).Elem().FieldByName("s").Elem().FieldByName("Option").Elem().FieldByName("Flags").Uint()
	}
	if got := flags(strict) &^ flags(plain); got != disallowUnknown {
		t.Fatalf("DisallowUnknownFields sets %#x, fastUnmarshalKnown sets %#x", got, disallowUnknown)
	}
	var v struct {
		A int `json:"a"`
	}
	if err := fastUnmarshalKnown([]byte(`{"a":1}`), &v); err != nil || v.A != 1 {
		t.Fatalf("declared members only: %v, %+v", err, v)
	}
	if err := fastUnmarshalKnown([]byte(`{"a":1,"b":2}`), &v); err == nil {
		t.Fatal("an unknown member decoded without an error")
	}
}

// item keeps its unknown members, as a generated model does.
type item struct {
	ID   string `json:"id"`
	Kids []item `json:"kids,omitempty"`

	unknownMembers Unknown
}

func (o item) UnknownMembers() map[string]stdjson.RawMessage { return o.unknownMembers.Members() }
func (o *item) SetUnknownMembers(m map[string]stdjson.RawMessage) {
	o.unknownMembers = NewUnknown(m)
}

// TestNoUnknownMembersCostNoAllocation: encoding and decoding a value whose
// models hold no unknown members allocate no more than the library alone does.
// A collection can empty the library's pools during either measurement, so a
// count is taken as the lowest of three.
func TestNoUnknownMembersCostNoAllocation(t *testing.T) {
	v := item{ID: "a", Kids: []item{{ID: "b"}, {ID: "c", Kids: []item{{ID: "d"}}}}}
	data, _ := Marshal(&v)
	plain := fewestAllocs(func() { _, _ = fastMarshal(&v) })
	keeping := fewestAllocs(func() { _, _ = Marshal(&v) })
	if keeping > plain {
		t.Errorf("Marshal: %v allocations, the library alone %v", keeping, plain)
	}
	var out item
	plain = fewestAllocs(func() { out = item{}; _ = fastUnmarshal(data, &out) })
	keeping = fewestAllocs(func() { out = item{}; _ = Unmarshal(data, &out) })
	if keeping > plain {
		t.Errorf("Unmarshal: %v allocations, the library alone %v", keeping, plain)
	}
}

func fewestAllocs(f func()) float64 {
	least := testing.AllocsPerRun(100, f)
	for range 2 {
		least = min(least, testing.AllocsPerRun(100, f))
	}
	return least
}

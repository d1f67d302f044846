package idemsrv

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/idemgen/idemgen/runtime/wire"
)

type rangeSpec struct {
	Gt  *int64 `json:"gt,omitempty"`
	Lte *int64 `json:"lte,omitempty"`
}

// rangeOrInt is stripe's created: a range object or a timestamp.
type rangeOrInt struct {
	Range   *rangeSpec
	Integer *int64
}

func (u rangeOrInt) MarshalJSON() ([]byte, error) {
	if u.Range != nil {
		return json.Marshal(u.Range)
	}
	return json.Marshal(u.Integer)
}

func (u *rangeOrInt) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		return json.Unmarshal(b, &u.Range)
	}
	return json.Unmarshal(b, &u.Integer)
}

// mapOrEmpty is stripe's metadata: an object, or "" to clear it.
type mapOrEmpty struct {
	Object map[string]string
	Enum   *string
}

func (u mapOrEmpty) MarshalJSON() ([]byte, error) {
	if u.Object != nil {
		return json.Marshal(u.Object)
	}
	return json.Marshal(u.Enum)
}

func (u *mapOrEmpty) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		return json.Unmarshal(b, &u.Object)
	}
	return json.Unmarshal(b, &u.Enum)
}

// TestObjectUnions: a union whose value is an object, as a deepObject
// query parameter (created[gt]=1) and as a form body member
// (metadata[k]=v), decodes to the object variant the client sent.
func TestObjectUnions(t *testing.T) {
	gt, lte := int64(1), int64(9)
	created := rangeOrInt{Range: &rangeSpec{Gt: &gt, Lte: &lte}}
	var got *rangeOrInt
	raw, err := roundTripQuery(t, wire.Param{Name: "created", Style: wire.StyleDeepObject, Explode: true}, &created, &got)
	if err != nil || got == nil || !reflect.DeepEqual(*got, created) {
		t.Errorf("query %s decoded %+v (%v), want %+v", raw, got, err, created)
	}

	type update struct {
		Metadata *mapOrEmpty `json:"metadata,omitempty"`
		Created  *rangeOrInt `json:"created,omitempty"`
	}
	sent := update{Metadata: &mapOrEmpty{Object: map[string]string{"k": "v"}}, Created: &created}
	body, err := wire.EncodeForm(sent)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/charges", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	e, _ := New(nil)
	var form update
	d := e.Decode(httptest.NewRecorder(), r)
	d.Form(&form, true)
	if d.err != nil || !reflect.DeepEqual(form, sent) {
		t.Errorf("form %s decoded %+v %+v (%v), want %+v %+v", body, form.Metadata, form.Created, d.err, sent.Metadata, sent.Created)
	}
}

// TestScalarUnionInForm: a union member of a form body holding a number
// (cancel_at=1) decodes to the number variant, as in a query parameter.
func TestScalarUnionInForm(t *testing.T) {
	type update struct {
		CancelAt *intOrString `json:"cancel_at,omitempty"`
		Name     *intOrString `json:"name,omitempty"`
	}
	n, s := int64(1), "now"
	sent := update{CancelAt: &intOrString{Integer: &n}, Name: &intOrString{String: &s}}
	body, err := wire.EncodeForm(sent)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/subscriptions", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	e, _ := New(nil)
	var got update
	d := e.Decode(httptest.NewRecorder(), r)
	d.Form(&got, true)
	if d.err != nil || !reflect.DeepEqual(got, sent) {
		t.Errorf("form %s decoded %+v %+v (%v), want %+v %+v", body, *got.CancelAt, *got.Name, d.err, *sent.CancelAt, *sent.Name)
	}
}

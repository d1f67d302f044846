package idemsrv

import (
	"bytes"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

type line struct {
	Price    int64  `json:"price"`
	Quantity *int32 `json:"quantity,omitempty"`
}

type charge struct {
	Amount   int64                   `json:"amount"`
	Capture  bool                    `json:"capture"`
	Desc     *string                 `json:"description,omitempty"`
	Meta     map[string]string       `json:"metadata,omitempty"`
	Lines    []line                  `json:"lines,omitempty"`
	Expand   []string                `json:"expand,omitempty"`
	Tags     []string                `json:"tags,omitempty"`
	Codes    []int                   `json:"codes,omitempty"`
	Note     idemrt.Nullable[string] `json:"note,omitzero"`
	Limit    idemrt.Nullable[int]    `json:"limit,omitzero"`
	At       time.Time               `json:"at"`
	Shipping *struct {
		City string `json:"city"`
	} `json:"shipping,omitempty"`
}

// TestFormDecodesWhatTheClientEncodes: wire.EncodeForm's body, with a
// deepObject list and a pipeDelimited one, decodes back equal.
func TestFormDecodesWhatTheClientEncodes(t *testing.T) {
	q, desc := int32(2), "a & b=c"
	sent := charge{Amount: 500, Capture: true, Desc: &desc, Meta: map[string]string{"k.1": "v w"},
		Lines: []line{{Price: 1, Quantity: &q}, {Price: 2}}, Expand: []string{"x", "y"}, Tags: []string{"t 1", "t2"},
		Codes: []int{1, 2}, Note: idemrt.Null[string](), Limit: idemrt.NewNullable(7),
		At: time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)}
	sent.Shipping = &struct {
		City string `json:"city"`
	}{City: "Zürich"}
	enc := []wire.Encoding{{Property: "expand", Style: wire.StyleDeepObject, Explode: true}, {Property: "codes", Style: wire.StylePipeDelimited}}
	body, err := wire.EncodeForm(sent, enc...)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/charges", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	e, _ := New(nil)
	var got charge
	d := e.Decode(httptest.NewRecorder(), r)
	d.Form(&got, true, enc...)
	if d.err != nil {
		t.Fatalf("decode %s: %v", body, d.err)
	}
	if !reflect.DeepEqual(got, sent) {
		t.Errorf("decoded\n%+v\nwant\n%+v\nbody %s", got, sent, body)
	}
}

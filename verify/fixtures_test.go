package verify_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/verify"
)

func TestParseFixtures(t *testing.T) {
	f, err := verify.ParseFixtures([]byte(`
createPayment:
  body: {order_id: o1, amount: 100, currency: EUR, meta: {a: [1, 2]}}
  body2: {order_id: o1, amount: 200, currency: EUR}
getPayment:
  params: {payment_id: pay_1, limit: 10, expand: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"payment_id": "pay_1", "limit": "10", "expand": "true"}
	if !reflect.DeepEqual(f["getPayment"].Params, want) {
		t.Errorf("params %v", f["getPayment"].Params)
	}
	body, _ := f["createPayment"].Body.(map[string]any)
	if body["amount"] != float64(100) || f["createPayment"].Body2 == nil {
		t.Errorf("body %v", f["createPayment"])
	}
	for doc, says := range map[string]string{
		"x:\n  parmas: {}\n":       "parmas",
		"x:\n  params: {a: [1]}\n": "a is not a string",
		"- a\n":                    "fixtures",
	} {
		if _, err := verify.ParseFixtures([]byte(doc)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want %q", doc, err, says)
		}
	}
}

package mock

import (
	"encoding/json"
	"testing"
)

// TestRequestExample: a body with the required members only, readOnly
// members left out, values that validate (amount >= 1); an example that
// validates is sent as written; no body, no example.
func TestRequestExample(t *testing.T) {
	s, err := New("../testdata/specs/orders.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mt, v, ok := s.RequestExample("POST", "/payments")
	b, _ := json.Marshal(v)
	if !ok || mt != "application/json" || string(b) != `{"amount":1,"currency":"str","order_id":"3fa85f64-5717-4562-b3fc-2c963f66afa6"}` {
		t.Errorf("createPayment: %v %q %s", ok, mt, b)
	}
	if _, _, ok := s.RequestExample("GET", "/orders/{order_id}"); ok {
		t.Error("getOrder has no body")
	}
	doc := []byte(`openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    post:
      operationId: make
      requestBody:
        content:
          application/json:
            schema: {type: object, required: [n], properties: {n: {type: integer, minimum: 5}}}
            examples:
              bad: {value: {n: 1}}
              good: {value: {n: 7}}
      responses: {"201": {description: ok}}
`)
	s2, err := NewData("x.yaml", doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	_, v, _ = s2.RequestExample("POST", "/x")
	if b, _ := json.Marshal(v); string(b) != `{"n":7}` {
		t.Errorf("example: %s", b)
	}
}

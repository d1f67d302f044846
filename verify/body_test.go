package verify

import (
	"encoding/json"
	"net/url"
	"testing"
)

func TestOtherBody(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"amount":1,"currency":"EUR","order_id":"00000000-0000-4000-8000-000000000009"}`, `{"amount":2,"currency":"EUR","order_id":"00000000-0000-4000-8000-000000000009"}`},
		{`{"currency":"EUR","order_id":"00000000-0000-4000-8000-000000000009"}`, `{"currency":"EUS","order_id":"00000000-0000-4000-8000-000000000009"}`},
		{`{"items":[{"sku":"z"}]}`, `{"items":[{"sku":"a"}]}`},
		{`{"on":true}`, `{"on":false}`},
	}
	for _, c := range cases {
		var v any
		_ = json.Unmarshal([]byte(c.in), &v)
		got, _ := json.Marshal(otherBody(v))
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
	if otherBody(map[string]any{}) != nil || otherBody(map[string]any{"n": nil}) != nil {
		t.Error("nothing to change must give nil")
	}
}

func TestFirstDifference(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{`{"id":"a","n":1}`, `{"n":1,"id":"a"}`, ""},
		{`{"id":"a","x":{"y~/":[1,2]}}`, `{"id":"a","x":{"y~/":[1,3]}}`, `/x/y~0~1: [1,2] then [1,3]`},
		{`{"id":"a"}`, `{"id":"a","extra":true}`, `/extra: null then true`},
		{`plain`, `other`, `the bodies differ (5 then 5 bytes)`},
	}
	for _, c := range cases {
		if got := firstDifference([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("%s vs %s: %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestEncodeForm(t *testing.T) {
	b := encodeBody("application/x-www-form-urlencoded", map[string]any{
		"email": "a@b.c", "metadata": map[string]any{"k": "v"}, "tags": []any{"x", float64(2)}, "skip": nil})
	q, _ := url.ParseQuery(string(b))
	want := url.Values{"email": {"a@b.c"}, "metadata[k]": {"v"}, "tags[0]": {"x"}, "tags[1]": {"2"}}
	if q.Encode() != want.Encode() {
		t.Errorf("form %s, want %s", q.Encode(), want.Encode())
	}
}

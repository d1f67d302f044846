package wire

import (
	"errors"
	"testing"
)

type emailVariant struct {
	Email string `json:"email"`
}

type phoneVariant struct {
	Phone string `json:"phone"`
}

// TestDecodeAnyOf: every accepting variant is set; required members and
// the JSON type decide; null sets nothing.
func TestDecodeAnyOf(t *testing.T) {
	var e *emailVariant
	var p *phoneVariant
	var s *string
	vs := []Variant{{Target: &s}, {Target: &e, Required: []string{"email"}}, {Target: &p, Required: []string{"phone"}}}
	if err := DecodeAnyOf([]byte(` {"email":"a","phone":"b"} `), nil, vs...); err != nil || e == nil || p == nil || s != nil {
		t.Fatalf("both: %v %v %v %v", e, p, s, err)
	}
	e, p = nil, nil
	if err := DecodeAnyOf([]byte(`{"email":"a"}`), nil, vs...); err != nil || e == nil || p != nil {
		t.Fatalf("email only: %v %v %v", e, p, err)
	}
	e = nil
	if err := DecodeAnyOf([]byte(`{"other":1}`), nil, vs...); err != nil || e == nil || p != nil {
		t.Fatalf("fallback to the first that decodes: %v %v %v", e, p, err)
	}
	e = nil
	if err := DecodeAnyOf([]byte(`null`), nil, vs...); err != nil || e != nil || s != nil {
		t.Fatalf("null: %v", err)
	}
	if err := DecodeAnyOf([]byte(`true`), nil, vs...); !errors.Is(err, ErrNoVariant) {
		t.Fatalf("bool: %v", err)
	}
}

// TestMarshalAnyOf: one set variant, merged objects, first of mixed kinds,
// raw JSON when none is set.
func TestMarshalAnyOf(t *testing.T) {
	str := "x"
	cases := []struct {
		name string
		raw  string
		vs   []any
		want string
	}{
		{"one", "", []any{(*string)(nil), &emailVariant{"a"}}, `{"email":"a"}`},
		{"merged", "", []any{&phoneVariant{"b"}, &emailVariant{"a"}}, `{"email":"a","phone":"b"}`},
		{"mixed", "", []any{&str, &emailVariant{"a"}}, `"x"`},
		{"raw", `{"k":1}`, []any{(*string)(nil)}, `{"k":1}`},
		{"null", "", []any{(*string)(nil)}, `null`},
	}
	for _, c := range cases {
		got, err := MarshalAnyOf([]byte(c.raw), c.vs...)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s %v, want %s", c.name, got, err, c.want)
		}
	}
}

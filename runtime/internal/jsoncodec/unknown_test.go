package jsoncodec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/wire"
)

// node is a generated model that keeps its unknown members (a copy of
// what idemgen emits for an object without additionalProperties).
type node struct {
	ID     string                 `json:"id"`
	Kids   []node                 `json:"kids,omitempty"`
	ByName map[string]*node       `json:"by_name,omitempty"`
	Parent idemrt.Nullable[*node] `json:"parent,omitzero"`
	Shape  *shape                 `json:"shape,omitempty"`

	unknownMembers wire.Unknown
}

func (o node) UnknownMembers() map[string]json.RawMessage { return o.unknownMembers.Members() }
func (o *node) SetUnknownMembers(m map[string]json.RawMessage) {
	o.unknownMembers = wire.NewUnknown(m)
}

// shape is a oneOf of two models.
type shape struct {
	Circle *circle
	Square *square
	raw    json.RawMessage
}

func (u shape) MarshalJSON() ([]byte, error) { return wire.MarshalUnion(u.raw, u.Circle, u.Square) }
func (u *shape) UnmarshalJSON(data []byte) error {
	*u = shape{}
	return wire.DecodeUnion(data, &u.raw, &u.Circle, &u.Square)
}

type circle struct {
	Radius float64 `json:"radius"`

	unknownMembers wire.Unknown
}

func (o circle) UnknownMembers() map[string]json.RawMessage { return o.unknownMembers.Members() }
func (o *circle) SetUnknownMembers(m map[string]json.RawMessage) {
	o.unknownMembers = wire.NewUnknown(m)
}

type square struct {
	Side float64 `json:"side"`

	unknownMembers wire.Unknown
}

func (o square) UnknownMembers() map[string]json.RawMessage { return o.unknownMembers.Members() }
func (o *square) SetUnknownMembers(m map[string]json.RawMessage) {
	o.unknownMembers = wire.NewUnknown(m)
}

// everywhere has undeclared members at the top level, in an array item, in
// a map value, behind a Nullable, in a union variant, and one spelled with
// white space and an exact number literal.
const everywhere = `{"id":"root","new_top":{"a" : [1, 2.50]},"kids":[{"id":"k1","new_kid":true}],` +
	`"by_name":{"x":{"id":"m1","new_map":"v"}},"parent":{"id":"p","new_parent":null},` +
	`"shape":{"radius":2,"new_variant":"beta"}}`

// TestUnknownMembersKeptEverywhere: every model keeps its undeclared
// members, each value byte for byte, and encoding writes them all back.
func TestUnknownMembersKeptEverywhere(t *testing.T) {
	var n node
	if err := jsoncodec.Unmarshal([]byte(everywhere), &n); err != nil {
		t.Fatal(err)
	}
	parent, _ := n.Parent.Get()
	for name, got := range map[string]map[string]json.RawMessage{
		"top":     n.UnknownMembers(),
		"item":    n.Kids[0].UnknownMembers(),
		"map":     n.ByName["x"].UnknownMembers(),
		"parent":  parent.UnknownMembers(),
		"variant": n.Shape.Circle.UnknownMembers(),
	} {
		want := map[string]string{"top": `{"a" : [1, 2.50]}`, "item": `true`, "map": `"v"`, "parent": `null`, "variant": `"beta"`}[name]
		if len(got) != 1 || string(firstValue(got)) != want {
			t.Errorf("%s: unknown members %q, want one holding %s", name, got, want)
		}
	}
	b, err := jsoncodec.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, b, []byte(everywhere)) {
		t.Errorf("encoded again:\n%s\nwant the members of\n%s", b, everywhere)
	}
	if !bytes.Contains(b, []byte(`"new_top":{"a" : [1, 2.50]}`)) {
		t.Errorf("the unknown value is not written as received: %s", b)
	}
}

func firstValue(m map[string]json.RawMessage) json.RawMessage {
	for _, v := range m {
		return v
	}
	return nil
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// TestUnknownMembersNeverOverrideDeclared: a member the model declares is
// written from its field, also when the field is left out (omitempty) and
// when the unknown member's name differs only in case.
func TestUnknownMembersNeverOverrideDeclared(t *testing.T) {
	n := node{ID: "good"}
	n.SetUnknownMembers(map[string]json.RawMessage{
		"id": json.RawMessage(`"evil"`), "ID": json.RawMessage(`"evil"`),
		"kids": json.RawMessage(`[{"id":"evil"}]`), "extra": json.RawMessage(`1`),
	})
	b, err := jsoncodec.Marshal(&n)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"good","extra":1}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestDeclaredMemberWinsOnDecode: a member matching a field
// case-insensitively decodes into it (encoding/json's rule) and is not kept
// as unknown.
func TestDeclaredMemberWinsOnDecode(t *testing.T) {
	var n node
	if err := jsoncodec.Unmarshal([]byte(`{"ID":"x","other":1}`), &n); err != nil {
		t.Fatal(err)
	}
	if n.ID != "x" || len(n.UnknownMembers()) != 1 || string(n.UnknownMembers()["other"]) != "1" {
		t.Errorf("got %+v, unknown %q", n, n.UnknownMembers())
	}
}

// TestNoUnknownMembersEncodesAsEncodingJSON: a value without unknown
// members encodes exactly as encoding/json encodes it.
func TestNoUnknownMembersEncodesAsEncodingJSON(t *testing.T) {
	var n node
	if err := jsoncodec.Unmarshal([]byte(`{"id":"a","kids":[{"id":"b"}],"shape":{"radius":1}}`), &n); err != nil {
		t.Fatal(err)
	}
	got, err := jsoncodec.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(n)
	if !bytes.Equal(got, want) {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestInvalidUnknownMemberRefused: a value set by the caller that is not
// JSON fails the encoding instead of producing invalid JSON.
func TestInvalidUnknownMemberRefused(t *testing.T) {
	n := node{ID: "a"}
	n.SetUnknownMembers(map[string]json.RawMessage{"x": json.RawMessage(`{`)})
	if _, err := jsoncodec.Marshal(n); !errors.Is(err, jsoncodec.ErrInvalidUnknown) {
		t.Fatalf("got %v, want ErrInvalidUnknown", err)
	}
}

// TestManyUnknownMembers: 10,000 undeclared members are all kept and
// written back.
func TestManyUnknownMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":"a"`)
	for i := range 10000 {
		b.WriteString(`,"m` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i) + `":` + itoa(i))
	}
	b.WriteString(`}`)
	var n node
	if err := jsoncodec.Unmarshal([]byte(b.String()), &n); err != nil {
		t.Fatal(err)
	}
	if len(n.UnknownMembers()) != 10000 {
		t.Fatalf("%d unknown members, want 10000", len(n.UnknownMembers()))
	}
	out, err := jsoncodec.Marshal(n)
	if err != nil || !sameJSON(t, out, []byte(b.String())) {
		t.Fatalf("encoded again differs: %v", err)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestDeepUnknownMemberTooDeep: an undeclared member nesting past the
// depth limit fails the decoding with ErrTooDeep, as a declared one does.
func TestDeepUnknownMemberTooDeep(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	var n node
	err := jsoncodec.Unmarshal([]byte(`{"id":"a","deep":`+deep+`}`), &n)
	if !errors.Is(err, idemrt.ErrTooDeep) {
		t.Fatalf("got %v, want ErrTooDeep", err)
	}
}

package composition_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idemgen/idemgen/golden/composition"
	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// TestAnyOfSetsEveryMatchingVariant: a value that is both an e-mail and a
// phone contact fills both variants, and encodes back to the same members.
func TestAnyOfSetsEveryMatchingVariant(t *testing.T) {
	in := `{"email":"a@example.com","phone":"+100","verified":true}`
	var c composition.Contact
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	if c.EmailContact == nil || c.PhoneContact == nil || c.EmailContact.Email != "a@example.com" || c.PhoneContact.Phone != "+100" {
		t.Fatalf("variants: %+v %+v", c.EmailContact, c.PhoneContact)
	}
	if string(c.RawJSON()) != in {
		t.Fatalf("raw %s", c.RawJSON())
	}
	out, err := json.Marshal(c)
	if err != nil || string(out) != in {
		t.Fatalf("encoded %s %v", out, err)
	}
}

// TestAnyOfRequiredMembersDecide: an object without a variant's required
// member does not set that variant.
func TestAnyOfRequiredMembersDecide(t *testing.T) {
	var c composition.Contact
	if err := json.Unmarshal([]byte(`{"phone":"+100"}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.EmailContact != nil || c.PhoneContact == nil {
		t.Fatalf("variants: %+v %+v", c.EmailContact, c.PhoneContact)
	}
}

// TestAnyOfScalarsAndFallback: the JSON type picks among scalar variants; an
// object missing a required member still decodes into the first variant that
// takes it (servers omit members); nothing fitting is ErrNoVariant.
func TestAnyOfScalarsAndFallback(t *testing.T) {
	var p composition.EventReceiptPayload
	if err := json.Unmarshal([]byte(`"text"`), &p); err != nil || p.String == nil || *p.String != "text" || p.Integer != nil || p.OrderPlaced != nil {
		t.Fatalf("string: %+v %v", p, err)
	}
	if err := json.Unmarshal([]byte(`42`), &p); err != nil || p.Integer == nil || *p.Integer != 42 || p.String != nil {
		t.Fatalf("integer: %+v %v", p, err)
	}
	if err := json.Unmarshal([]byte(`{"order_id":"o1"}`), &p); err != nil || p.OrderPlaced == nil || p.OrderPlaced.OrderID != "o1" {
		t.Fatalf("fallback: %+v %v", p, err)
	}
	if err := json.Unmarshal([]byte(`[1]`), &p); !errors.Is(err, idemrt.ErrNoVariant) {
		t.Fatalf("array: %v", err)
	}
}

// TestOneOfStillPicksOne: oneOf keeps "first variant that decodes strictly".
func TestOneOfStillPicksOne(t *testing.T) {
	var s composition.Shape
	if err := json.Unmarshal([]byte(`{"kind":"square","side":2}`), &s); err != nil || s.Square == nil || s.Circle != nil {
		t.Fatalf("shape: %+v %v", s, err)
	}
}

// TestUnionConstructors: a constructor per variant sets that variant only;
// a one-value enumeration's takes no argument, and encodes as its value.
func TestUnionConstructors(t *testing.T) {
	clear := composition.NewEventReceiptNotesFromEmpty()
	if out, err := json.Marshal(clear); err != nil || string(out) != `""` {
		t.Fatalf("clear: %s %v", out, err)
	}
	set := composition.NewEventReceiptNotesFromObject(map[string]string{"a": "b"})
	if out, err := json.Marshal(set); err != nil || string(out) != `{"a":"b"}` || set.EmptyString != nil {
		t.Fatalf("set: %s %v", out, err)
	}
	p := composition.NewEventReceiptPayloadFromOrderPlaced(composition.OrderPlaced{OrderID: "o1"})
	if p.OrderPlaced == nil || p.OrderPlaced.OrderID != "o1" || p.String != nil || p.Integer != nil {
		t.Fatalf("payload: %+v", p)
	}
	if out, err := json.Marshal(composition.NewEventReceiptPayloadFromInteger(7)); err != nil || string(out) != "7" {
		t.Fatalf("integer: %s %v", out, err)
	}
}

package runtime

import (
	"encoding/json"
	"testing"
)

type patchDoc struct {
	Note  Nullable[string]   `json:"note,omitzero"`
	Count Nullable[int64]    `json:"count,omitzero"`
	Tags  Nullable[[]string] `json:"tags,omitzero"`
}

// TestNullableEncodesThreeStates: absent is left out, null is written as
// null, a value as itself.
func TestNullableEncodesThreeStates(t *testing.T) {
	b, err := json.Marshal(patchDoc{Note: Null[string](), Count: NewNullable[int64](0)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"note":null,"count":0}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	b, _ = json.Marshal(patchDoc{})
	if string(b) != `{}` {
		t.Errorf("absent members were written: %s", b)
	}
}

// TestNullableDecodesThreeStates: a missing member stays absent, null is
// null, a value is a value.
func TestNullableDecodesThreeStates(t *testing.T) {
	var d patchDoc
	if err := json.Unmarshal([]byte(`{"note":null,"count":7}`), &d); err != nil {
		t.Fatal(err)
	}
	if !d.Note.IsSet() || !d.Note.IsNull() {
		t.Errorf("note: want null, got %+v", d.Note)
	}
	if v, ok := d.Count.Get(); !ok || v != 7 || d.Count.IsNull() {
		t.Errorf("count: want 7, got %v %v", v, ok)
	}
	if d.Tags.IsSet() || d.Tags.IsNull() || !d.Tags.IsZero() {
		t.Errorf("tags: want absent, got %+v", d.Tags)
	}
	if _, ok := d.Tags.Get(); ok || d.Tags.Or([]string{"x"})[0] != "x" {
		t.Error("absent Get/Or")
	}
	if err := json.Unmarshal([]byte(`{"count":"x"}`), &d); err == nil {
		t.Error("a value of the wrong type decoded")
	}
}

package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

// tri mimics idemrt.Nullable (wire may not import the engine): absent is
// the zero value, null is explicit.
type tri struct {
	set, null bool
	v         string
}

func (n tri) IsSet() bool  { return n.set }
func (n tri) IsNull() bool { return n.set && n.null }
func (n tri) IsZero() bool { return !n.set }
func (n tri) MarshalJSON() ([]byte, error) {
	if !n.set || n.null {
		return []byte("null"), nil
	}
	return json.Marshal(n.v)
}

type triBody struct {
	Name  string `json:"name"`
	Note  tri    `json:"note,omitzero"`
	Memo  tri    `json:"memo,omitzero"`
	Title tri    `json:"title,omitzero"`
}

// TestFormSendsNullAsEmpty: an explicit null member is sent as an empty
// value (the form convention for clearing a field), an absent one not at
// all, a value as itself.
func TestFormSendsNullAsEmpty(t *testing.T) {
	b, err := EncodeForm(triBody{Name: "n", Note: tri{set: true, null: true}, Title: tri{set: true, v: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "name=n&note=&title=t"; got != want {
		t.Errorf("form = %s, want %s", got, want)
	}
}

// TestMultipartSendsNullAsEmpty is TestFormSendsNullAsEmpty for multipart.
func TestMultipartSendsNullAsEmpty(t *testing.T) {
	b, _, err := EncodeMultipart(triBody{Name: "n", Note: tri{set: true, null: true}, Title: tri{set: true, v: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `name="note"`) || strings.Contains(s, `name="memo"`) || !strings.Contains(s, "\r\n\r\nt\r\n") {
		t.Errorf("multipart body:\n%s", s)
	}
}

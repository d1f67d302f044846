package profiles_test

// Behaviour tests of the generated profiles client against a loopback
// server: a PATCH that clears members with an explicit null, the three
// states decoded, a named array returned by value, an empty form body not
// sent at all, and a form that clears a member with an empty value.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/golden/profiles"
	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// recorder is a loopback server that answers every request with reply and
// keeps the last request's method, content type and body.
type recorder struct {
	mu                  sync.Mutex
	method, ctype, body string
	hadBody             bool
	status              int
	reply               string
}

func newClient(t *testing.T, status int, reply string) (*profiles.Client, *recorder) {
	t.Helper()
	r := &recorder{status: status, reply: reply}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.method, r.ctype, r.body, r.hadBody = req.Method, req.Header.Get("Content-Type"), string(b), req.ContentLength > 0
		r.mu.Unlock()
		if r.reply != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(r.status)
		io.WriteString(w, r.reply)
	}))
	t.Cleanup(ts.Close)
	c, err := profiles.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c, r
}

// TestPatchClearsMember: Null sends "bio": null, a value is sent, and an
// absent member is not sent at all.
func TestPatchClearsMember(t *testing.T) {
	c, r := newClient(t, 200, `{"id":"p1","avatar_url":null}`)
	patch := profiles.ProfilePatch{
		Bio:         idemrt.Null[string](),
		DisplayName: idemrt.NewNullable("Ada"),
		Tags:        idemrt.Null[[]string](),
	}
	if _, err := c.PatchProfile(context.Background(), patch, profiles.PatchProfileParams{ProfileID: "p1"}); err != nil {
		t.Fatal(err)
	}
	if want := `{"bio":null,"display_name":"Ada","tags":null}`; r.method != "PATCH" || r.body != want {
		t.Errorf("%s sent %s, want %s", r.method, r.body, want)
	}
}

// TestDecodeThreeStates: a member sent as null, one with a value and one
// left out decode to null, the value and absent, on a model that also keeps
// extra members (its own JSON methods), and encode back the same way.
func TestDecodeThreeStates(t *testing.T) {
	c, _ := newClient(t, 200, `{"id":"p1","bio":null,"display_name":"Ada","avatar_url":null,"plan":"pro"}`)
	p, err := c.GetProfile(context.Background(), profiles.GetProfileParams{ProfileID: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Bio.IsSet() || !p.Bio.IsNull() {
		t.Errorf("bio = %+v, want null", p.Bio)
	}
	if v, ok := p.DisplayName.Get(); !ok || v != "Ada" {
		t.Errorf("display_name = %q, %v; want Ada", v, ok)
	}
	if p.Age.IsSet() || p.Age.IsNull() {
		t.Errorf("age = %+v, want absent", p.Age)
	}
	if p.AvatarURL != nil || string(p.AdditionalProperties["plan"]) != `"pro"` {
		t.Errorf("avatar_url = %v, extra = %v", p.AvatarURL, p.AdditionalProperties)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"avatar_url":null,"bio":null,"display_name":"Ada","id":"p1","plan":"pro"}`; string(b) != want {
		t.Errorf("encoded back as %s, want %s", b, want)
	}
}

// TestNamedArrayByValue: a named array model is returned as the named type,
// not behind a pointer.
func TestNamedArrayByValue(t *testing.T) {
	c, _ := newClient(t, 200, `[{"id":"p1","avatar_url":null},{"id":"p2","avatar_url":"https://x"}]`)
	var list profiles.ProfileList
	list, err := c.ListProfiles(context.Background())
	if err != nil || len(list) != 2 || list[1].ID != "p2" || *list[1].AvatarURL != "https://x" {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

// TestEmptyFormBodyNotSent: DeleteProfile takes no body argument and sends
// no body.
func TestEmptyFormBodyNotSent(t *testing.T) {
	c, r := newClient(t, 204, "")
	if err := c.DeleteProfile(context.Background(), profiles.DeleteProfileParams{ProfileID: "p1"}); err != nil {
		t.Fatal(err)
	}
	if r.method != "DELETE" || r.hadBody || r.body != "" || r.ctype != "" {
		t.Errorf("%s sent %q (%s)", r.method, r.body, r.ctype)
	}
}

// TestFormClearsMember: in a form body an explicit null is an empty value.
func TestFormClearsMember(t *testing.T) {
	c, r := newClient(t, 204, "")
	form := profiles.SettingsForm{Theme: "dark", Signature: idemrt.Null[string]()}
	if err := c.UpdateSettings(context.Background(), form, profiles.UpdateSettingsParams{ProfileID: "p1"}); err != nil {
		t.Fatal(err)
	}
	if want := "signature=&theme=dark"; r.body != want || r.ctype != "application/x-www-form-urlencoded" {
		t.Errorf("form = %q (%s), want %q", r.body, r.ctype, want)
	}
}

// TestAPIVersion: the package names the document's info.version.
func TestAPIVersion(t *testing.T) {
	if profiles.APIVersion != "2024-01-15" {
		t.Errorf("APIVersion = %q", profiles.APIVersion)
	}
}

package media_test

// A success declared as a JSON string and answered as text (Kratos's
// getWebAuthnJavaScript sends text/javascript): the client returns the text.

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
)

// GetWebAuthnScript is mediaEcho's: a generated server answers the script
// as the JSON string it declares.
func (e *mediaEcho) GetWebAuthnScript(context.Context) (*media.Script, error) {
	s := media.Script("(function () {})()")
	return &s, nil
}

// TestStringSchemaAnsweredAsText: the script comes back as text/javascript
// and the method returns it, byte for byte, instead of a decode error; the
// server is asked once.
func TestStringSchemaAnsweredAsText(t *testing.T) {
	const js = "/* webauthn */\n(function () { window.__oryWebAuthn = true })()\n"
	hits := 0
	c, _, _ := capture(t, func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "text/javascript; charset=UTF-8")
		io.WriteString(w, js)
	})
	got, err := c.GetWebAuthnScript(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(*got) != js || hits != 1 {
		t.Fatalf("script %q after %d requests, want %q after 1", *got, hits, js)
	}
}

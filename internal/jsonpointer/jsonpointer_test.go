package jsonpointer

import (
	"slices"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

func TestEscapeRoundTrip(t *testing.T) {
	for tok, want := range map[string]string{
		"":         "",
		"post":     "post",
		"/orders":  "~1orders",
		"a~b":      "a~0b",
		"~1":       "~01",
		"/~/":      "~1~0~1",
		"{id}/x~y": "{id}~1x~0y",
	} {
		if got := Escape(tok); got != want {
			t.Errorf("Escape(%q) = %q, want %q", tok, got, want)
		}
		if got := Unescape(want); got != tok {
			t.Errorf("Unescape(%q) = %q, want %q", want, got, tok)
		}
	}
}

func TestJoinSplit(t *testing.T) {
	p := Join("/paths", "/orders/{id}", "post")
	if p != "/paths/~1orders~1{id}/post" {
		t.Fatalf("Join = %q", p)
	}
	if got := Split(p); !slices.Equal(got, []string{"paths", "/orders/{id}", "post"}) {
		t.Errorf("Split(%q) = %q", p, got)
	}
	if got := Split(""); got != nil {
		t.Errorf("Split(\"\") = %q, want nil", got)
	}
	if got := Split("/"); !slices.Equal(got, []string{""}) {
		t.Errorf("Split(\"/\") = %q", got)
	}
	if got := Last(p); got != "post" {
		t.Errorf("Last = %q", got)
	}
	if got := Last("/a/~1b"); got != "/b" {
		t.Errorf("Last = %q", got)
	}
}

// TestImports: the helpers are shared by parser and annotate, so they depend
// on the standard library alone.
func TestImports(t *testing.T) {
	testutil.CheckImports(t)
}

package generator

import (
	"strings"
	"testing"
)

// TestTypeCheckCatchesErrors proves the type-check the golden, fuzz and
// real-world tests rely on can fail: a generated package with a use of a
// runtime name that does not exist, or a mistyped constant, is refused,
// while the unchanged package passes.
func TestTypeCheckCatchesErrors(t *testing.T) {
	out := generateFixture(t).Files
	if err := typeCheckFiles(t, out); err != nil {
		t.Fatalf("the fixture package: %v", err)
	}
	for _, extra := range []string{"var _ = idemrt.NoSuchName\n", "var _ int = \"text\"\n"} {
		files := append([]File(nil), out...)
		for i, f := range files {
			if f.Name == "client_gen.go" {
				files[i].Content = append(append([]byte(nil), f.Content...), extra...)
			}
		}
		if err := typeCheckFiles(t, files); err == nil || !strings.Contains(err.Error(), "client_gen.go") {
			t.Errorf("%q: got %v, want a type error in client_gen.go", extra, err)
		}
	}
}

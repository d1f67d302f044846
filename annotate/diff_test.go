package annotate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedEdgeCases(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"from empty", "", "a\nb\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n"},
		{"no newline at end", "a\nb", "a\nc", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"newline added", "a", "a\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{
			"two hunks",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			"0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
			"--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -10,3 +11,4 @@\n 10\n 11\n 12\n+13\n",
		},
		{
			"gap of six merges",
			"1\n2\n3\n4\n5\n6\n7\n8\n",
			"1\nx\n2\n3\n4\n5\n6\n7\ny\n8\n",
			"--- a/f\n+++ b/f\n@@ -1,8 +1,10 @@\n 1\n+x\n 2\n 3\n 4\n 5\n 6\n 7\n+y\n 8\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Unified("f", "f", []byte(tt.a), []byte(tt.b))); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestUnifiedMatchesGNUDiff compares the output with `diff -u` on seeded
// random edits, hunk boundaries and minimality included (Myers finds a
// shortest script, as GNU diff does; where several shortest scripts exist
// the two may pick different ones, so the inputs use distinct lines).
func TestUnifiedMatchesGNUDiff(t *testing.T) {
	diffBin, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("GNU diff is not installed")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for i := range 200 {
		a, b := randomEdit(rng)
		pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if err := os.WriteFile(pa, a, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pb, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(diffBin, "-u", pa, pb).Output() // exit 1 means "differ"
		got := Unified("a", "b", a, b)
		if !bytes.Equal(skipHeader(got), skipHeader(out)) {
			t.Fatalf("case %d differs from diff -u\na:\n%s\nb:\n%s\ngot:\n%s\nwant:\n%s", i, a, b, got, out)
		}
	}
}

// randomEdit returns a file of distinct numbered lines and a copy with
// random insertions, deletions and replacements.
func randomEdit(rng *rand.Rand) ([]byte, []byte) {
	var a, b strings.Builder
	n := rng.IntN(60)
	for i := range n {
		line := fmt.Sprintf("line %d\n", i)
		a.WriteString(line)
		switch rng.IntN(10) {
		case 0:
			continue // deleted
		case 1:
			fmt.Fprintf(&b, "changed %d\n", i)
			continue
		case 2:
			fmt.Fprintf(&b, "new before %d\n", i)
		}
		b.WriteString(line)
	}
	if rng.IntN(4) == 0 {
		b.WriteString("appended\n")
	}
	return []byte(a.String()), []byte(b.String())
}

func skipHeader(d []byte) []byte {
	for range 2 {
		if i := bytes.IndexByte(d, '\n'); i >= 0 {
			d = d[i+1:]
		}
	}
	return d
}

// BenchmarkUnifiedLargeSpec measures the diff of the biggest real spec
// against its annotated rewrite.
func BenchmarkUnifiedLargeSpec(b *testing.B) {
	src, err := os.ReadFile("../../shared/specs/github-api.json")
	if err != nil {
		b.Skip("github-api.json is not beside the checkout")
	}
	res, err := Annotate(src)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Unified("x", "x", src, res.Annotated)
	}
}

// BenchmarkAnnotateLargeSpec measures parsing and splicing the biggest
// real YAML spec.
func BenchmarkAnnotateLargeSpec(b *testing.B) {
	src, err := os.ReadFile("../../shared/specs/stripe-spec3-2023-09.yaml")
	if err != nil {
		b.Skip("the stripe spec is not beside the checkout")
	}
	for b.Loop() {
		if _, err := Annotate(src); err != nil {
			b.Fatal(err)
		}
	}
}

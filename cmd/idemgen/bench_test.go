package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// BenchmarkLint measures `idemgen lint` end to end (load, validate, report)
// on each real-world spec: go test -run XXX -bench Lint ./cmd/idemgen
func BenchmarkLint(b *testing.B) {
	dir := testutil.SharedSpecsDir(b)
	if dir == "" {
		b.Skip("no shared specs folder beside the checkout")
	}
	for _, name := range []string{"stripe-spec3-2023-09.yaml", "github-api.json", "openai.yaml"} {
		spec := filepath.Join(dir, name)
		if _, err := os.Stat(spec); err != nil {
			continue
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if code := run([]string{"lint", spec}, io.Discard, io.Discard); code != exitOK {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

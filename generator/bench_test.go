package generator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// BenchmarkGenerate measures Generate alone (the document is loaded once,
// outside the timer) for each real-world spec: go test -bench Generate
// -run '^$' ./generator.
func BenchmarkGenerate(b *testing.B) {
	dir := testutil.SharedSpecsDir(b)
	if dir == "" {
		b.Skip("no ../shared/specs")
	}
	specs, _ := filepath.Glob(filepath.Join(dir, "*.*"))
	for _, spec := range specs {
		ext := filepath.Ext(spec)
		if ext != ".json" && ext != ".yaml" {
			continue
		}
		name := packageName(strings.TrimSuffix(filepath.Base(spec), ext))
		b.Run(name, func(b *testing.B) {
			api, diags, err := parser.Load(spec, parser.Options{})
			if err != nil || diags.HasErrors() {
				b.Fatal(err, diags.Errors())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Generate(api, Config{Package: name}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package generator

import (
	"bytes"
	"testing"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// TestChunkedModelsMatchOneRendering renders the models (and operations) in
// chunks of 1, 3 and everything at once: the merged bytes must be identical.
func TestChunkedModelsMatchOneRendering(t *testing.T) {
	apis := map[string]func() *ir.API{"fixture": fixture}
	for name, spec := range goldenSpecs(t) {
		apis[name] = func() *ir.API {
			api, _, err := parser.Load(spec, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return api
		}
	}
	for name, load := range apis {
		var want []byte
		for _, size := range []int{1 << 30, 1, 3, 8, 24} {
			out, err := generate(load(), Config{Package: "p"}, size)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var got []byte
			for _, f := range out.Files {
				got = append(append(got, f.Name+"\n"...), f.Content...)
			}
			if want == nil {
				want = got
			} else if !bytes.Equal(got, want) {
				t.Errorf("%s: chunks of %d differ from one rendering:\n%s\n---\n%s", name, size, got, want)
			}
		}
	}
}

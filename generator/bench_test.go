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

// BenchmarkComments measures turning a document's descriptions into doc
// comments, as the models file does (a type's lead sentence, title and
// description, then each property's description), for each real-world
// spec: "fresh" converts every comment from scratch, "cached" uses one
// docCache for the whole document as Generate does: go test -bench
// Comments -run '^$' ./generator.
func BenchmarkComments(b *testing.B) {
	dir := testutil.SharedSpecsDir(b)
	if dir == "" {
		b.Skip("no ../shared/specs")
	}
	for _, spec := range []string{"openai.yaml", "stripe-spec3-2023-09.yaml"} {
		api, diags, err := parser.Load(filepath.Join(dir, spec), parser.Options{})
		if err != nil || diags.HasErrors() {
			b.Fatal(err, diags.Errors())
		}
		var comments [][]string
		for _, s := range api.Schemas {
			comments = append(comments, []string{s.GoName + " is an object.", s.Title, s.Description})
			for _, p := range s.Properties {
				comments = append(comments, []string{p.Description})
			}
		}
		name := strings.TrimSuffix(spec, filepath.Ext(spec))
		for _, mode := range []string{"fresh", "cached"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if mode == "fresh" {
						for _, paras := range comments {
							comment(paras...)
						}
						continue
					}
					c := newDocCache(len(api.Schemas))
					for _, paras := range comments {
						c.comment(false, paras)
					}
				}
			})
		}
	}
}

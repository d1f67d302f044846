package api

import (
	"os"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/parser"
)

// TestGeneratedAPIIsCurrent fails when the committed client and server no
// longer match what idemgen generates from openapi.yaml: run go generate in
// this directory and commit the result.
func TestGeneratedAPIIsCurrent(t *testing.T) {
	api, _, err := parser.Load("openapi.yaml", parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := generator.Generate(api, generator.Config{Package: "api", Server: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Files {
		got, err := os.ReadFile(f.Name)
		if err != nil {
			t.Errorf("%s: %v (run go generate)", f.Name, err)
			continue
		}
		if string(got) != string(f.Content) {
			t.Errorf("%s is stale: run go generate in nemesis/api and commit", f.Name)
		}
	}
}

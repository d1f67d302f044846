package generator

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImportTable enforces STYLE.md's import table for this package: the
// standard library, ir, templates and jennifer only, plus x/net's HTML
// tokenizer for descriptions written in HTML (markup_html.go). The
// generator never sees kin-openapi types, and never imports the runtime it
// targets.
func TestImportTable(t *testing.T) {
	testutil.CheckImports(t, "github.com/idemgen/idemgen/ir", "github.com/idemgen/idemgen/templates", "github.com/dave/jennifer/jen",
		"golang.org/x/net/html")
}

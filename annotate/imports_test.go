package annotate

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImports: annotate shares the contract rules (ir) and the JSON pointer
// helpers with the parser, but never the parser itself or kin-openapi: it
// works on the document's own bytes and tree.
func TestImports(t *testing.T) {
	testutil.CheckImports(t, "github.com/idemgen/idemgen/ir", "github.com/idemgen/idemgen/internal/jsonpointer",
		"go.yaml.in/yaml/v4")
}

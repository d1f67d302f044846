package parser

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImports enforces the package table of STYLE.md: parser may import the
// standard library, ir, the shared JSON pointer helpers, kin-openapi and the
// YAML parsers (v3 for its own trees; v4 only for the type of kin-openapi's
// decoding errors, see kinDecodeFailures), and nothing else of the module (the generator must never reach
// kin-openapi through it).
func TestImports(t *testing.T) {
	testutil.CheckImports(t, "github.com/idemgen/idemgen/ir", "github.com/idemgen/idemgen/internal/jsonpointer",
		"github.com/idemgen/idemgen/internal/overlay",
		"github.com/getkin/kin-openapi/", "go.yaml.in/yaml/v4", "go.yaml.in/yaml/v4")
}

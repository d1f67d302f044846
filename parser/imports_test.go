package parser

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImports enforces the package table of STYLE.md: parser may import the
// standard library, ir, the shared JSON pointer, overlay and YAML-encoding
// helpers, kin-openapi and the YAML parser (yaml/v4: its own trees, which are
// kin-openapi's node type too), and nothing else of the module (the
// generator must never reach kin-openapi through it).
func TestImports(t *testing.T) {
	testutil.CheckImports(t, "github.com/idemgen/idemgen/ir", "github.com/idemgen/idemgen/internal/jsonpointer",
		"github.com/idemgen/idemgen/internal/overlay", "github.com/idemgen/idemgen/internal/yamltree",
		"github.com/getkin/kin-openapi/", "go.yaml.in/yaml/v4")
}

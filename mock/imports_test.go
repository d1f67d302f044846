package mock_test

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// The mock is a server-side tool: it may use kin-openapi (openapi3filter
// validates requests and responses), the ledger's public API, and the
// parser's Load and IR (the stateful mode pages lists by the contracts the
// generated pagers read), and the problem vocabulary (runtime/problem: its
// answers carry the headers every idemgen problem does), never the generator
// or the runtime's engine.
func TestImports(t *testing.T) {
	testutil.CheckImports(t, "github.com/getkin/kin-openapi/",
		"github.com/idemgen/idemgen/ledger", "github.com/idemgen/idemgen/ledger/sqlitestore", "go.yaml.in/yaml/v4",
		"github.com/idemgen/idemgen/internal/overlay", "github.com/idemgen/idemgen/internal/yamltree",
		"github.com/idemgen/idemgen/internal/ctxtime", "github.com/idemgen/idemgen/parser", "github.com/idemgen/idemgen/ir",
		"github.com/idemgen/idemgen/runtime/problem")
}

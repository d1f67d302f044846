package verify_test

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// verify is a client of a live server: it reads the IR (never kin-openapi:
// the command gives it bodies built by the mock) and sends through the
// runtime's engine, the transport generated clients use.
func TestImports(t *testing.T) {
	testutil.CheckImports(t, "github.com/idemgen/idemgen/ir", "github.com/idemgen/idemgen/runtime",
		"github.com/idemgen/idemgen/internal/jsonpointer", "go.yaml.in/yaml/v4")
}

package runtime

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImportsStdlibAndUUIDOnly: a user who imports a generated SDK pulls in
// this package, so it may depend on the standard library and google/uuid
// only.
func TestImportsStdlibAndUUIDOnly(t *testing.T) {
	testutil.CheckImports(t, "github.com/google/uuid")
}

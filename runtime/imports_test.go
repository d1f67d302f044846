package runtime

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImportsStdlibAndUUIDOnly: a user who imports a generated SDK pulls in
// this package, so it may depend on the standard library and google/uuid
// only, plus runtime/internal/shared. The engine never imports the codec
// (runtime/wire): it is not in the list.
func TestImportsStdlibAndUUIDOnly(t *testing.T) {
	testutil.CheckImports(t, testutil.EngineImports...)
}

package wire

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImportsStdlibOnly: the codec depends on the standard library and
// runtime/internal/shared only; it never imports the engine (package
// runtime), nor the engine it.
func TestImportsStdlibOnly(t *testing.T) {
	testutil.CheckImports(t, testutil.WireImports...)
}

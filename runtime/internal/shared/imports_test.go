package shared

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImportsStdlibOnly: both the engine and the codec import this package,
// so it imports neither, nor anything beyond the standard library.
func TestImportsStdlibOnly(t *testing.T) {
	testutil.CheckImports(t, testutil.SharedImports...)
}

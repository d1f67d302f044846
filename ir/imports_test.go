package ir

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImports: the IR is plain data shared by parser and generator, so it
// depends on the standard library alone.
func TestImports(t *testing.T) {
	testutil.CheckImports(t)
}

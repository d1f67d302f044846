package templates

import (
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestImports: templates holds embedded text and depends on the standard
// library alone.
func TestImports(t *testing.T) {
	testutil.CheckImports(t)
}

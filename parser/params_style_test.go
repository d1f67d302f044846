package parser

import (
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestParamStyleResolvesTheDefaultOnce: the parser is the one place that
// fills in a location's default style; a style the location does not allow
// is kept for generator.Check to refuse.
func TestParamStyleResolvesTheDefaultOnce(t *testing.T) {
	for _, tt := range []struct {
		in      ir.ParamLocation
		written string
		want    ir.ParamStyle
	}{
		{ir.InPath, "", ir.StyleSimple},
		{ir.InPath, "matrix", ir.StyleMatrix},
		{ir.InPath, "form", ir.StyleForm},
		{ir.InQuery, "", ir.StyleForm},
		{ir.InQuery, "deepObject", ir.StyleDeepObject},
		{ir.InHeader, "", ir.StyleSimple},
		{ir.InCookie, "", ir.StyleForm},
	} {
		if got := paramStyle(tt.in, tt.written); got != tt.want {
			t.Errorf("paramStyle(%s, %q) = %q, want %q", tt.in, tt.written, got, tt.want)
		}
	}
	if got := formStyle(""); got != ir.StyleForm {
		t.Errorf("formStyle(\"\") = %q", got)
	}
}

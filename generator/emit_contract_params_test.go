package generator

import (
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

// TestContractDeclaresParams: an operation's contract names its declared
// header, query and cookie parameters (the only ones a call journal keeps
// the values of), a path key's fixed query and the members an exploded
// form-style object sends under their own names, but not a parameter an
// apiKey security scheme names in the same location, whatever its case:
// that is a credential.
func TestContractDeclaresParams(t *testing.T) {
	api := fixture()
	op := api.Operations[0]
	op.Query = "beta=true"
	param := func(name, goName string, in ir.ParamLocation, style ir.ParamStyle) *ir.Parameter {
		return &ir.Parameter{Name: name, GoName: goName, In: in, Style: style, Explode: style == ir.StyleForm, Type: str()}
	}
	op.Params = append(op.Params,
		param("expand", "Expand", ir.InQuery, ir.StyleForm), param("API_KEY", "APIKey", ir.InQuery, ir.StyleForm),
		param("X-Request-Tag", "XRequestTag", ir.InHeader, ir.StyleSimple), param("x-api-key", "XAPIKey", ir.InHeader, ir.StyleSimple),
		param("theme", "Theme", ir.InCookie, ir.StyleForm), param("sid", "Sid", ir.InCookie, ir.StyleForm))
	coords := param("coords", "Coords", ir.InQuery, ir.StyleForm)
	coords.Type = &ir.Schema{Kind: ir.KindObject, Properties: []*ir.Property{
		prop("lat", "Lat", &ir.Schema{Kind: ir.KindNumber}, true), prop("long", "Long", &ir.Schema{Kind: ir.KindNumber}, true)}}
	op.Params = append(op.Params, coords)
	out, err := Generate(api, Config{Package: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	var all string
	for _, f := range out.Files {
		all += blanks.ReplaceAllString(string(f.Content), " ")
	}
	for _, want := range []string{
		`HeaderParams: []string{"Idempotency-Key", "X-Request-Tag"},`,
		`QueryParams: []string{"beta", "coords", "expand", "lat", "long"},`,
		`CookieParams: []string{"theme"},`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s in the contract of %s", want, op.ID)
		}
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
}

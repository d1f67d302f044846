package generator

import (
	"net/url"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// contractParams emits the contract's declared parameter names, the only
// ones whose values a call journal keeps (idemrt.Operation.HeaderParams,
// QueryParams, CookieParams):
//
//	HeaderParams: []string{"X-Request-Id"},
//	QueryParams:  []string{"beta", "expand"},
//
// A name an apiKey security scheme of the document gives to the same
// location is left out (compared without case), so a credential the spec
// also declares as a parameter is never journaled; a fixed query a path
// key carries ("/responses?beta=true") counts as declared.
func (g *generation) contractParams(op *ir.Operation) []jen.Code {
	var out []jen.Code
	for _, loc := range []struct {
		field string
		in    ir.ParamLocation
	}{{"HeaderParams", ir.InHeader}, {"QueryParams", ir.InQuery}, {"CookieParams", ir.InCookie}} {
		names := g.declaredNames(op, loc.in)
		if len(names) == 0 {
			continue
		}
		out = append(out, jen.Line().Id(loc.field).Op(":").Index().String().ValuesFunc(func(grp *jen.Group) {
			for _, n := range names {
				grp.Lit(n)
			}
		}))
	}
	return out
}

// declaredNames lists, sorted and once each, the names of op's parameters
// in location in, less the names apiKey schemes use there.
func (g *generation) declaredNames(op *ir.Operation, in ir.ParamLocation) []string {
	var names []string
	for _, p := range op.Params {
		if p.In == in {
			names = append(names, p.Name)
			names = append(names, explodedMembers(p)...)
		}
	}
	if in == ir.InQuery {
		names = append(names, fixedQueryNames(op.Query)...)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return g.apiKeyNamed(in, n) })
	slices.Sort(names)
	return slices.Compact(names)
}

// apiKeyNamed reports whether an apiKey security scheme of the document
// sends its credential in location in under name (compared without case).
func (g *generation) apiKeyNamed(in ir.ParamLocation, name string) bool {
	for _, s := range g.api.SecuritySchemes {
		if s.Type == "apiKey" && s.In == in && strings.EqualFold(s.ParamName, name) {
			return true
		}
	}
	return false
}

// fixedQueryNames are the parameter names of a path key's fixed query
// ("beta=true" -> beta).
func fixedQueryNames(query string) []string {
	var names []string
	for _, pair := range strings.Split(query, "&") {
		name, _, _ := strings.Cut(pair, "=")
		if n, err := url.QueryUnescape(name); err == nil && n != "" {
			names = append(names, n)
		}
	}
	return names
}

// explodedMembers are the names an exploded form-style object query
// parameter sends its members under (coords={lat,long} -> lat=..&long=..):
// its declared properties. The members of a free-form object are not
// known, so a journal keeps them by name alone.
func explodedMembers(p *ir.Parameter) []string {
	if p.In != ir.InQuery || p.Style != ir.StyleForm || !p.Explode || p.Type == nil || p.Type.Kind != ir.KindObject {
		return nil
	}
	names := make([]string, len(p.Type.Properties))
	for i, prop := range p.Type.Properties {
		names[i] = prop.Name
	}
	return names
}

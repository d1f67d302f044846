package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/runtime/wire"
)

// TestEveryStyleHasItsWireConstant: adding a style to ir (a constant and
// its place in ir.StylesIn) without the wire constant the generator emits
// for it, or the other way round, fails here before any golden is compiled.
func TestEveryStyleHasItsWireConstant(t *testing.T) {
	consts := wireStyleConsts(t)
	names := map[string]bool{}
	for s := wire.Style(1); s.String() != ""; s++ {
		names[s.String()] = true
	}
	seen := map[ir.ParamStyle]bool{}
	for _, loc := range []ir.ParamLocation{ir.InPath, ir.InQuery, ir.InHeader, ir.InCookie} {
		for _, s := range ir.StylesIn(loc) {
			seen[s] = true
			emitted := fmt.Sprintf("%#v", jen.Add(styleConst(s)))
			if !consts[emitted] {
				t.Errorf("style %q is emitted as %s, which runtime/wire does not declare", s, emitted)
			}
			if !names[string(s)] {
				t.Errorf("style %q: no wire.Style has that String()", s)
			}
		}
	}
	if len(seen) != len(names) || len(seen) != len(consts) {
		t.Errorf("ir has %d styles, wire %d constants and %d named styles", len(seen), len(consts), len(names))
	}
}

// wireStyleConsts lists the Style constants runtime/wire declares, as the
// generator would write them ("wire.StyleForm").
func wireStyleConsts(t *testing.T) map[string]bool {
	dir := filepath.Join(testutil.ModuleRoot(t), "runtime", "wire")
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, f := range pkgs["wire"].Files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			typ := ""
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				for _, n := range vs.Names {
					if typ == "Style" {
						out["wire."+n.Name] = true
					}
				}
			}
		}
	}
	return out
}

package generator

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// Check returns one located error for each construct of api the generator
// cannot honour: exactly what Generate refuses, or skips under
// SkipUnsupported. `idemgen lint` reports these beside the parser's findings,
// so that lint and generate reject the same documents.
func Check(api *ir.API) ir.Diagnostics {
	api, diags := withoutUnusableSchemes(api)
	for _, op := range api.Operations {
		diags = append(diags, opProblems(op)...)
	}
	return diags
}

// supportedOps returns the operations the generator can honour, and one
// located error for each problem of the others. The caller decides whether
// the errors stop generation or only skip those operations.
func (g *generation) supportedOps() ([]*ir.Operation, ir.Diagnostics) {
	var ops []*ir.Operation
	var diags ir.Diagnostics
	for _, op := range g.api.Operations {
		problems := opProblems(op)
		if len(problems) == 0 {
			ops = append(ops, op)
			continue
		}
		diags = append(diags, problems...)
	}
	return ops, diags
}

// opProblems checks one operation.
func opProblems(op *ir.Operation) ir.Diagnostics {
	var out ir.Diagnostics
	bad := func(src ir.Source, rule, format string, args ...any) {
		out = append(out, ir.Diagnostic{Severity: ir.SeverityError, Rule: rule, File: src.File, Line: src.Line,
			Column: src.Column, Pointer: src.Pointer, Operation: op.ID, Message: fmt.Sprintf(format, args...)})
	}
	placeholders := ir.PathTemplateNames(op.Path)
	declared := map[string]bool{}
	for _, p := range op.Params {
		if !slices.Contains(ir.StylesIn(p.In), p.Style) {
			bad(p.Source, "unsupported-style", "parameter %q: style %q is not allowed in %s (allowed: %s); the client cannot serialise it",
				p.Name, p.Style, p.In, styleList(ir.StylesIn(p.In)))
		}
		if p.In == ir.InPath {
			declared[p.Name] = true
			if !contains(placeholders, p.Name) {
				bad(p.Source, "path-param-unused", "path parameter %q does not appear in the path %s", p.Name, op.Path)
			}
		}
	}
	for _, name := range placeholders {
		if !declared[name] {
			bad(op.Source, "path-param-missing", "the path %s names {%s} but no path parameter declares it", op.Path, name)
		}
	}
	out = append(out, op.Unsupported...)
	// Report in document order, as the parser does.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// styleList joins style names for a message.
func styleList(styles []ir.ParamStyle) string {
	names := make([]string, len(styles))
	for i, st := range styles {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

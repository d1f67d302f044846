package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// withoutUnusableSchemes returns api without the security schemes the
// parser found unusable (ir.SecurityScheme.Unsupported), and their
// findings. Every requirement naming such a scheme is dropped, since all
// the schemes of a requirement must be applied together; an operation that
// had requirements and is left with none gets a located finding of its own
// in its Unsupported, so that it is refused or skipped like any other
// operation the generator cannot honour (sending it without credentials
// would not be what the document asks). The operations that keep another
// alternative keep it.
//
// api is not modified: when a scheme goes, the result is a shallow copy
// whose changed operations are copies too. When none does, it is api.
func withoutUnusableSchemes(api *ir.API) (*ir.API, ir.Diagnostics) {
	gone := map[string]ir.Diagnostic{}
	var found ir.Diagnostics
	var kept []*ir.SecurityScheme
	for _, s := range api.SecuritySchemes {
		if len(s.Unsupported) == 0 {
			kept = append(kept, s)
			continue
		}
		gone[s.Name] = s.Unsupported[0]
		found = append(found, s.Unsupported...)
	}
	if len(gone) == 0 {
		return api, nil
	}
	out := *api
	out.SecuritySchemes = kept
	out.Operations = make([]*ir.Operation, len(api.Operations))
	for i, op := range api.Operations {
		out.Operations[i] = withoutSchemes(op, gone)
	}
	return &out, found
}

// withoutSchemes returns op without the requirements naming a scheme of
// gone: op itself when it names none, else a copy, which records that it is
// left without any when that is so.
func withoutSchemes(op *ir.Operation, gone map[string]ir.Diagnostic) *ir.Operation {
	var kept []ir.SecurityRequirement
	var dropped []string
	for _, req := range op.Security {
		i := slices.IndexFunc(req.Schemes, func(name string) bool { _, ok := gone[name]; return ok })
		if i < 0 {
			kept = append(kept, req)
			continue
		}
		if !slices.Contains(dropped, req.Schemes[i]) {
			dropped = append(dropped, req.Schemes[i])
		}
	}
	if len(dropped) == 0 {
		return op
	}
	cp := *op
	cp.Security = kept
	if len(kept) == 0 {
		d := gone[dropped[0]]
		d.Operation = op.ID
		d.Message = fmt.Sprintf("every security requirement names an unusable scheme (%s); no call could authenticate",
			strings.Join(dropped, ", "))
		cp.Unsupported = append(slices.Clip(op.Unsupported), d)
	}
	return &cp
}

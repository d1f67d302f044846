package specdiff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// paramKey identifies a parameter across versions as the wire sees it: a
// path parameter by its place in the template (renaming one changes no
// request), a header by its name in any case, others by name.
func paramKey(op *ir.Operation, p *ir.Parameter) string {
	switch p.In {
	case ir.InHeader:
		return "header:" + strings.ToLower(p.Name)
	case ir.InPath:
		if i := slices.Index(ir.PathTemplateNames(op.Path), p.Name); i >= 0 {
			return fmt.Sprintf("path:#%d", i)
		}
	}
	return string(p.In) + ":" + p.Name
}

// fields returns the parameters that become fields of the params struct,
// by paramKey: all but the idempotency key header, which the contract rules
// cover.
func fields(op *ir.Operation) map[string]*ir.Parameter {
	out := map[string]*ir.Parameter{}
	for _, p := range op.Params {
		if op.Retry.Safety == ir.Keyed && p.In == ir.InHeader && strings.EqualFold(p.Name, op.Retry.KeyName) {
			continue
		}
		out[paramKey(op, p)] = p
	}
	return out
}

// isIfMatch reports whether a parameter is the If-Match precondition.
func isIfMatch(p *ir.Parameter) bool {
	return p.In == ir.InHeader && strings.EqualFold(p.Name, "If-Match")
}

// params compares the parameters of one operation.
func (d *differ) params(was, op *ir.Operation) {
	olds, news := fields(was), fields(op)
	for _, p := range op.Params {
		key := paramKey(op, p)
		if news[key] == nil {
			continue
		}
		if o, ok := olds[key]; ok {
			d.param(op, o, p)
			continue
		}
		d.paramAdded(op, p)
	}
	for _, o := range was.Params {
		if key := paramKey(was, o); news[key] != nil || olds[key] == nil {
			continue
		}
		d.add(Change{Rule: "param-removed", Area: AreaSurface, Breaking: true, Operation: op.ID,
			Pointer: o.Source.Pointer, At: op.Source, Was: o.Source,
			Message: fmt.Sprintf("%s's %s parameter %q is gone: the field %s.%s no longer exists", op.GoName, o.In, o.Name, paramsName(was), o.GoName)})
	}
}

// paramsName is the name of an operation's params struct.
func paramsName(op *ir.Operation) string { return op.GoName + "Params" }

func (d *differ) paramAdded(op *ir.Operation, p *ir.Parameter) {
	c := Change{Area: AreaSurface, Operation: op.ID, Pointer: p.Source.Pointer, At: p.Source}
	switch {
	case p.Required && isIfMatch(p):
		c.Rule, c.Area, c.Breaking = "if-match-required", AreaContract, true
		c.Message = fmt.Sprintf("%s requires an If-Match header now: the old client sends none, and the server refuses the call (428) before it runs", op.GoName)
	case p.Required:
		c.Rule, c.Breaking = "param-added-required", true
		c.Message = fmt.Sprintf("%s has a new required %s parameter %q: the old client never sends it", op.GoName, p.In, p.Name)
	default:
		c.Rule = "param-added"
		c.Message = fmt.Sprintf("%s has a new optional %s parameter %q (field %s.%s)", op.GoName, p.In, p.Name, paramsName(op), p.GoName)
	}
	d.add(c)
}

// param compares one parameter present in both versions.
func (d *differ) param(op *ir.Operation, o, p *ir.Parameter) {
	c := Change{Rule: "param-type", Area: AreaSurface, Breaking: true, Operation: op.ID, Pointer: p.Source.Pointer, At: p.Source, Was: o.Source}
	what := fmt.Sprintf("%s's %s parameter %q", op.GoName, p.In, p.Name)
	// Both typed as NEW's is required: a change of requiredness is a finding
	// of its own, which says what it does to the field's type.
	same := *o
	same.Required = p.Required
	if ot, nt := paramType(&same), paramType(p); ot != nt {
		var how string
		c.Rule, how = retype(byShape.paramType(&same) == byShape.paramType(p), "param-type")
		c.Message = fmt.Sprintf("%s %s: the field %s.%s is %s now, was %s", what, how, paramsName(op), p.GoName, nt, ot)
		d.add(c)
	}
	if o.Required != p.Required {
		d.paramRequired(op, o, p, c, what)
	}
	if o.GoName != p.GoName {
		c.Rule = "param-renamed"
		c.Message = fmt.Sprintf("%s is the field %s.%s now, was %s", what, paramsName(op), p.GoName, o.GoName)
		d.add(c)
	}
}

// paramRequired reports a parameter made required (an old caller may leave
// it out; for If-Match a contract change) or optional (breaking only when
// its field's Go type turns into a pointer).
func (d *differ) paramRequired(op *ir.Operation, o, p *ir.Parameter, c Change, what string) {
	was := *p
	was.Required = o.Required
	ot, nt := paramType(&was), paramType(p)
	switch {
	case p.Required && isIfMatch(p):
		c.Rule, c.Area = "if-match-required", AreaContract
		c.Message = fmt.Sprintf("%s requires an If-Match header now: an old caller that leaves it out is refused (428) before the call runs", op.GoName)
	case p.Required:
		c.Rule = "param-required"
		c.Message = what + " is required now: an old caller may leave it out"
	default:
		c.Rule, c.Breaking = "param-optional", ot != nt
		c.Message = what + " is optional now"
	}
	if ot != nt {
		c.Message += fmt.Sprintf("; the field %s.%s is %s now, was %s", paramsName(op), p.GoName, nt, ot)
	}
	d.add(c)
}

package specdiff

import (
	"fmt"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// body compares the request bodies of one operation.
func (d *differ) body(was, op *ir.Operation) {
	o, n := was.Body, op.Body
	if o != nil && len(o.Content) == 0 {
		o = nil
	}
	if n != nil && len(n.Content) == 0 {
		n = nil
	}
	switch {
	case o == nil && n == nil:
		return
	case o == nil:
		d.add(Change{Rule: "body-added", Area: AreaSurface, Breaking: true, Operation: op.ID, Pointer: n.Source.Pointer, At: n.Source,
			Message: fmt.Sprintf("%s takes a request body now: the method has a new body argument", op.GoName)})
		return
	case n == nil:
		d.add(Change{Rule: "body-removed", Area: AreaSurface, Breaking: true, Operation: op.ID, Pointer: o.Source.Pointer, At: op.Source, Was: o.Source,
			Message: fmt.Sprintf("%s takes no request body now: the method lost its body argument", op.GoName)})
		return
	}
	d.bodyRequired(op, o, n)
	// Both sides are typed as NEW's body is required, so that a change of
	// requiredness (reported above) is not also every media type's change.
	d.media(op, "request body", o.Source, n.Source, o.Content, n.Content, func(t typer, m *ir.MediaType) string {
		return bodyType(t, m, n.Required)
	})
}

// bodyType is the Go type of the body argument for one media type.
func bodyType(t typer, m *ir.MediaType, required bool) string {
	if required {
		return t.goType(m.Schema)
	}
	return t.optionalType(m.Schema)
}

// bodyRequired reports a request body made required (an old caller may
// pass none) or optional (breaking only when the argument's Go type turns
// into a pointer).
func (d *differ) bodyRequired(op *ir.Operation, o, n *ir.RequestBody) {
	if o.Required == n.Required {
		return
	}
	c := Change{Rule: "body-required", Area: AreaSurface, Breaking: true, Operation: op.ID, Pointer: n.Source.Pointer, At: n.Source, Was: o.Source,
		Message: fmt.Sprintf("%s's request body is required now: an old caller may pass none", op.GoName)}
	if !n.Required {
		c.Rule = "body-optional"
		c.Message = fmt.Sprintf("%s's request body is optional now", op.GoName)
	}
	m := n.Content[0]
	if ot, nt := bodyType(byName, m, o.Required), bodyType(byName, m, n.Required); ot != nt {
		c.Message += fmt.Sprintf("; the body argument is %s now, was %s", nt, ot)
	} else if !n.Required {
		c.Breaking = false
	}
	d.add(c)
}

// responseKey names a response as the document does: "201", "2XX",
// "default".
func responseKey(r *ir.Response) string {
	switch {
	case r.Default:
		return "default"
	case r.Class != 0:
		return fmt.Sprintf("%dXX", r.Class)
	}
	return fmt.Sprint(r.Status)
}

// responses compares the responses of one operation: a success response
// or one of its media types going away breaks the old client; an error
// response coming or going does not change what it decodes into a result.
func (d *differ) responses(was, op *ir.Operation) {
	news := map[string]*ir.Response{}
	for _, r := range op.Responses {
		news[responseKey(r)] = r
	}
	olds := map[string]bool{}
	for _, o := range was.Responses {
		key := responseKey(o)
		olds[key] = true
		n := news[key]
		switch {
		case n != nil && o.IsSuccess():
			d.media(op, key+" response", o.Source, n.Source, o.Content, n.Content, responseType)
		case n == nil:
			d.add(Change{Rule: ifElse(o.IsSuccess(), "response-removed", "error-response-removed"), Area: AreaSurface, Breaking: o.IsSuccess(),
				Operation: op.ID, Pointer: o.Source.Pointer, At: op.Source, Was: o.Source,
				Message: fmt.Sprintf("%s no longer answers %s", op.GoName, key)})
		}
	}
	for _, n := range op.Responses {
		if key := responseKey(n); !olds[key] {
			d.add(Change{Rule: ifElse(n.IsSuccess(), "response-added", "error-response-added"), Area: AreaSurface,
				Operation: op.ID, Pointer: n.Source.Pointer, At: n.Source,
				Message: fmt.Sprintf("%s may answer %s now", op.GoName, key)})
		}
	}
}

// responseType is the Go type a success response's body decodes into.
func responseType(t typer, m *ir.MediaType) string {
	if m.Binary {
		return "io.ReadCloser"
	}
	return t.goType(m.Schema)
}

func ifElse(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// media compares the content maps of a request body or a success response
// (what names which): a media type gone breaks, one added does not, and a
// schema whose Go type changed breaks.
func (d *differ) media(op *ir.Operation, what string, wasAt, at ir.Source, olds, news []*ir.MediaType, typ func(typer, *ir.MediaType) string) {
	named := map[string]*ir.MediaType{}
	for _, m := range news {
		named[m.Name] = m
	}
	kept := map[string]bool{}
	for _, o := range olds {
		ptr := jsonpointer.Join(at.Pointer, "content", o.Name)
		n := named[o.Name]
		if n == nil {
			d.add(Change{Rule: "media-type-removed", Area: AreaSurface, Breaking: true, Operation: op.ID,
				Pointer: jsonpointer.Join(wasAt.Pointer, "content", o.Name), At: at, Was: wasAt,
				Message: fmt.Sprintf("%s's %s no longer has the media type %s", op.GoName, what, o.Name)})
			continue
		}
		kept[o.Name] = true
		if ot, nt := typ(byName, o), typ(byName, n); ot != nt {
			rule, how := retype(typ(byShape, o) == typ(byShape, n), "type-changed")
			d.add(Change{Rule: rule, Area: AreaSurface, Breaking: true, Operation: op.ID, Pointer: ptr, At: at, Was: wasAt,
				Message: fmt.Sprintf("%s's %s (%s) %s: %s now, was %s", op.GoName, what, o.Name, how, nt, ot)})
		}
	}
	for _, n := range news {
		if !kept[n.Name] {
			d.add(Change{Rule: "media-type-added", Area: AreaSurface, Operation: op.ID,
				Pointer: jsonpointer.Join(at.Pointer, "content", n.Name), At: at,
				Message: fmt.Sprintf("%s's %s has a new media type %s", op.GoName, what, n.Name)})
		}
	}
}

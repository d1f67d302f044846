package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/ir"
)

// markUploads records the object schemas sent as multipart/form-data
// bodies: their binary properties are file parts, typed idemrt.File (a file
// name, a Content-Type and a reader the engine streams and replays) rather
// than []byte, whose part would be named after the field and buffered.
func (g *generation) markUploads(ops []*ir.Operation) {
	for _, op := range ops {
		if p := requestBody(op); p != nil && p.kind == bodyMultipart {
			g.uploads[p.media.Schema.Deref()] = true
		}
	}
}

// uploadOwner returns s when it is a multipart body's schema, else nil: the
// owner an inline object's fields are emitted with.
func (g *generation) uploadOwner(s *ir.Schema) *ir.Schema {
	if g.uploads[s] {
		return s
	}
	return nil
}

// fileType returns idemrt.File for a binary property of a multipart body's
// schema, else nil:
//
//	File idemrt.File `json:"file"`
func (g *generation) fileType(owner *ir.Schema, p *ir.Property) *jen.Statement {
	if owner == nil || !g.uploads[owner] {
		return nil
	}
	if d := p.Type.Deref(); d != nil && d.Kind == ir.KindString && d.Format == ir.FormatBinary {
		return jen.Qual(rtPath, "File")
	}
	return nil
}

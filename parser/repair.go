package parser

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// repair is stage 2 of a load: every file of the document set, the ones its
// $refs name included (the walk reads them as it meets the references), then
// the Swagger 2.0 fixes openapi2conv needs. The repaired trees are what
// kin-openapi reads (docFile.bytesOf).
func (l *loader) repair(swagger bool) {
	l.promoteXWebhooks()
	for i := 0; i < len(l.order); i++ {
		(&repairer{l: l, f: l.files[l.order[i]]}).run()
	}
	if swagger {
		l.fixSwagger()
	}
}

// nodeKind is what the repair stage knows a node to be.
type nodeKind int

const (
	// kNode is any OpenAPI object other than a schema: $refs in it are real.
	kNode nodeKind = iota
	// kSchema is a schema object: its keywords are shape-checked.
	kSchema
	// kSchemaMap maps names to schemas (properties, components.schemas).
	kSchemaMap
	// kData is example, default or extension data: a "$ref" in it is data.
	kData
)

// slot is where a node sits: its parent node, the index of its key (mapping)
// or of itself (sequence) in the parent, the tokens of its JSON pointer, and
// its role: the field that says what it must be ("parameters" for a
// parameter in a list or in components.parameters, "responses" for a
// response, "requestBody").
//
// The tokens are a stack shared down the walk and joined into a pointer
// only for a finding (pointer): joining one per node cost an allocation for
// every node of every document. A slot is only valid during its walk step.
type slot struct {
	parent *yaml.Node
	index  int
	role   string
	path   []string
}

// pointer is the slot's JSON pointer.
func (s slot) pointer() string {
	return jsonpointer.Join("", s.path...)
}

// repairer walks one file's tree before kin-openapi sees it: it loads the
// files that $refs name, checks every $ref target, and repairs what would
// make kin-openapi refuse the whole document (each repair a located warning,
// each refused remote reference an error). Removals are applied after the
// walk, last first, so indexes stay valid.
type repairer struct {
	l       *loader
	f       *docFile
	pending []func()
}

func (p *repairer) run() {
	p.dedupe(p.f.root, make([]string, 0, 32), 0)
	p.walk(p.f.root, kNode, slot{path: make([]string, 0, 32)}, 0)
	for i := len(p.pending) - 1; i >= 0; i-- {
		p.pending[i]()
	}
	if len(p.pending) > 0 {
		p.f.repaired = true
	}
}

// maxDepth bounds the walk on hostile input; real documents stay far below.
const maxDepth = 400

func (p *repairer) walk(n *yaml.Node, kind nodeKind, s slot, depth int) {
	if n == nil || kind == kData || depth > maxDepth {
		return
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p.walk(item, kind, slot{parent: n, index: i, role: s.role, path: append(s.path, strconv.Itoa(i))}, depth+1)
		}
	case yaml.MappingNode:
		if ref := mapGet(n, "$ref"); ref != nil && ref.Kind == yaml.ScalarNode && kind != kSchemaMap {
			p.checkRef(n, ref.Value, kind, s)
			return
		}
		if kind == kSchema {
			p.fixSchema(n, s)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			role := s.role
			if roleKeys[k] || kind == kSchema {
				role = k
			}
			p.walk(v, childKind(kind, k), slot{parent: n, index: i, role: role, path: append(s.path, k)}, depth+1)
		}
	}
}

// roleKeys are the keys that name the role of their value themselves; any
// other key (a status code, a parameter's component name) passes on the role
// of the map that holds it.
var roleKeys = map[string]bool{
	"parameters": true, "responses": true, "requestBody": true, "requestBodies": true,
	"headers": true, "schema": true, "schemas": true, "paths": true, "content": true,
	"securitySchemes": true, "examples": true, "links": true, "callbacks": true, "definitions": true,
}

// schemaValued are the keywords whose value is one schema or a list of them.
var schemaValued = map[string]bool{
	"items": true, "additionalProperties": true, "not": true, "contains": true,
	"if": true, "then": true, "else": true, "propertyNames": true, "additionalItems": true,
	"unevaluatedItems": true, "unevaluatedProperties": true, "contentSchema": true,
	"allOf": true, "oneOf": true, "anyOf": true, "prefixItems": true,
}

// schemaMaps are the schema keywords whose value maps names to schemas.
var schemaMaps = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "dependentSchemas": true,
	"definitions": true,
}

// childKind decides what the value under key is, given what its parent is.
func childKind(parent nodeKind, key string) nodeKind {
	if strings.HasPrefix(key, "x-") {
		return kData
	}
	switch parent {
	case kSchemaMap:
		return kSchema
	case kSchema:
		switch {
		case schemaMaps[key]:
			return kSchemaMap
		case schemaValued[key]:
			return kSchema
		}
		return kData
	}
	switch key {
	case "schema", "itemSchema", "items":
		return kSchema
	case "schemas", "definitions":
		return kSchemaMap
	case "example", "value", "enum":
		// Not "default": in an OpenAPI object that is the default response.
		return kData
	}
	return kNode
}

// replacement says in words what repair would do, for the warning text.
func (p *repairer) replacement(kind nodeKind, s slot) string {
	switch {
	case kind == kSchema:
		return "an untyped value"
	case s.role == "responses":
		return "a response without content"
	}
	return "nothing (the element is dropped)"
}

// repair replaces an unusable $ref: a schema becomes `{}` (any value), a
// response becomes one without content, anything else is removed from its
// parent.
func (p *repairer) repair(n *yaml.Node, kind nodeKind, s slot) {
	p.f.repaired = true
	switch {
	case kind == kSchema:
		n.Content = nil
	case s.role == "responses":
		n.Content = []*yaml.Node{scalar("description"), scalar("unresolved reference")}
	case s.parent != nil:
		p.remove(s)
	default:
		n.Content = nil
	}
}

// remove schedules the removal of the node at s from its parent. The node is
// found again by identity when the removal runs, so removals scheduled in any
// order never shift one another.
func (p *repairer) remove(s slot) {
	parent, target := s.parent, s.parent.Content[s.index]
	p.pending = append(p.pending, func() {
		for i, c := range parent.Content {
			if c != target {
				continue
			}
			if parent.Kind == yaml.MappingNode {
				parent.Content = append(parent.Content[:i], parent.Content[i+2:]...)
			} else {
				parent.Content = append(parent.Content[:i], parent.Content[i+1:]...)
			}
			return
		}
	})
}

func scalar(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

func deepCopy(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = deepCopy(x)
	}
	return &c
}

package parser

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// nodeKind is what the pre-pass knows a node to be.
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
// or of itself (sequence) in the parent, its JSON pointer, and its role: the
// field that says what it must be ("parameters" for a parameter in a list or
// in components.parameters, "responses" for a response, "requestBody").
type slot struct {
	parent *yaml.Node
	index  int
	role   string
	ptr    string
}

// prepass walks one file's tree before kin-openapi sees it: it loads the
// files that $refs name, checks every $ref target, and repairs what would
// make kin-openapi refuse the whole document (each repair a located warning,
// each refused remote reference an error). Removals are applied after the
// walk, last first, so indexes stay valid.
type prepass struct {
	l       *loader
	f       *docFile
	pending []func()
}

func (p *prepass) run() {
	p.dedupe(p.f.root, "", 0)
	p.walk(p.f.root, kNode, slot{}, 0)
	for i := len(p.pending) - 1; i >= 0; i-- {
		p.pending[i]()
	}
	if len(p.pending) > 0 {
		p.f.repaired = true
	}
}

// maxDepth bounds the walk on hostile input; real documents stay far below.
const maxDepth = 400

func (p *prepass) walk(n *yaml.Node, kind nodeKind, s slot, depth int) {
	if n == nil || kind == kData || depth > maxDepth {
		return
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p.walk(item, kind, slot{parent: n, index: i, role: s.role, ptr: jsonpointer.Join(s.ptr, strconv.Itoa(i))}, depth+1)
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
			p.walk(v, childKind(kind, k), slot{parent: n, index: i, role: role, ptr: jsonpointer.Join(s.ptr, k)}, depth+1)
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

// checkRef follows one $ref: it loads the file it names, refuses remote files
// unless allowed, and repairs a reference whose target does not exist or is of
// the wrong kind.
func (p *prepass) checkRef(n *yaml.Node, ref string, kind nodeKind, s slot) {
	here := loc{p.f.key, s.ptr, n}
	file, frag := splitRef(ref)
	key := resolveFile(p.f.key, file)
	if isRemote(key) && !p.l.opts.AllowRemoteRefs {
		p.l.sink.errorf(here, p.opAt(s.ptr), ruleRemoteRef, "remote reference %q refused (allow it with --allow-remote-refs); replaced by %s", ref, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	if refused := p.refuseRead(key); refused != "" {
		p.l.sink.errorf(here, p.opAt(s.ptr), ruleRefOutside, "reference %q refused: %s; replaced by %s", ref, refused, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	target := p.l.file(key)
	if target == nil {
		p.l.sink.warnf(here, "", ruleDanglingRef, "reference %q: file %s cannot be loaded; replaced by %s", ref, file, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	if found, _ := lookup(target.root, frag); found == nil {
		p.l.sink.warnf(here, "", ruleDanglingRef, "reference %q points at nothing; replaced by %s", ref, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	if p.refLoops(p.f.key, ref) {
		p.l.sink.warnf(here, "", ruleRefCycle, "reference %q leads back to itself through other references and names no value; replaced by %s", ref, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	p.checkRefKind(n, ref, frag, target, kind, s)
}

// refuseRead says why the file key may not be read at all (a local file
// outside the allowed folder trees, a URL that is not http or https), or "".
// The reason names the rule, never anything read from the file.
func (p *prepass) refuseRead(key string) string {
	if isRemote(key) {
		if checkRemote(key) != nil {
			return "only http and https references can be fetched"
		}
		return ""
	}
	if p.l.roots.check(key) != nil {
		return "the file is outside the folder tree of the document (widen it with --ref-root)"
	}
	return ""
}

// opAt names the operation a pointer of the root file lies in (its
// operationId, or the name made from method and path), or "" outside
// operations and in other files.
func (p *prepass) opAt(pointer string) string {
	toks := strings.SplitN(strings.TrimPrefix(pointer, "/"), "/", 4)
	if p.f != p.l.root || len(toks) < 3 || toks[0] != "paths" || !contains(httpMethods, toks[2]) {
		return ""
	}
	path := jsonpointer.Unescape(toks[1])
	op := mapGet(mapGet(mapGet(p.f.root, "paths"), path), toks[2])
	if id := strings.TrimSpace(scalarString(mapGet(op, "operationId"))); id != "" {
		return id
	}
	return lowerGoName(toks[2] + " " + path)
}

// httpMethods are the operation keys of an OpenAPI path item.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// maxRefChain bounds how many references refLoops follows.
const maxRefChain = 64

// refLoops reports whether following ref (written in file from) through
// objects that are nothing but another $ref comes back to one already
// passed: such a loop names no value, and the loader would resolve it to
// nothing, so the element would vanish without a word.
func (p *prepass) refLoops(from, ref string) bool {
	seen := map[string]bool{}
	for range maxRefChain {
		file, frag := splitRef(ref)
		key := resolveFile(from, file)
		if seen[key+"#"+frag] {
			return true
		}
		seen[key+"#"+frag] = true
		if isRemote(key) {
			return false
		}
		target := p.l.file(key)
		if target == nil {
			return false
		}
		found, _ := lookup(target.root, frag)
		next := mapGet(found, "$ref")
		if next == nil || next.Kind != yaml.ScalarNode {
			return false
		}
		from, ref = key, next.Value
	}
	return true
}

// componentKinds maps the slot a $ref sits in to the components collection
// its target must come from.
var componentKinds = map[string]string{
	"parameters": "parameters", "responses": "responses", "requestBody": "requestBodies",
	"headers": "headers", "securitySchemes": "securitySchemes", "requestBodies": "requestBodies",
}

// checkRefKind repairs a $ref into the wrong components collection: a request
// body pointing at a response gets the response's content copied in, anything
// else is treated like a dangling reference.
func (p *prepass) checkRefKind(n *yaml.Node, ref, frag string, target *docFile, kind nodeKind, s slot) {
	want := componentKinds[s.role]
	if kind == kSchema {
		want = "schemas"
	}
	got, ok := componentCollection(frag)
	if want == "" || !ok || got == want || (want == "schemas" && got == "definitions") {
		return
	}
	here := loc{p.f.key, s.ptr, n}
	if want == "requestBodies" && got == "responses" {
		if content := mapGet(mustLookup(target.root, frag), "content"); content != nil {
			p.l.sink.warnf(here, "", ruleRefKind, "request body reference %q points at a response; its content is used as the request body", ref)
			n.Content = []*yaml.Node{scalar("content"), deepCopy(content)}
			p.f.repaired = true
			return
		}
	}
	p.l.sink.warnf(here, "", ruleRefKind, "reference %q points at %s where %s are expected; replaced by %s", ref, got, want, p.replacement(kind, s))
	p.repair(n, kind, s)
}

// componentCollection returns "schemas" for "/components/schemas/X" (or
// "definitions" for Swagger's "/definitions/X").
func componentCollection(frag string) (string, bool) {
	toks := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	switch {
	case len(toks) >= 3 && toks[0] == "components":
		return toks[1], true
	case len(toks) >= 2 && (toks[0] == "definitions" || toks[0] == "parameters" || toks[0] == "responses"):
		if toks[0] == "definitions" {
			return "schemas", true
		}
		return toks[0], true
	}
	return "", false
}

func mustLookup(n *yaml.Node, pointer string) *yaml.Node {
	found, _ := lookup(n, pointer)
	return found
}

// replacement says in words what repair would do, for the warning text.
func (p *prepass) replacement(kind nodeKind, s slot) string {
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
func (p *prepass) repair(n *yaml.Node, kind nodeKind, s slot) {
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
func (p *prepass) remove(s slot) {
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

// dedupe removes the earlier definitions of a member defined twice in one
// mapping: JSON parsers, kin-openapi's JSON path included, keep the last one,
// while its YAML path refuses the whole document.
func (p *prepass) dedupe(n *yaml.Node, pointer string, depth int) {
	if n == nil || depth > maxDepth {
		return
	}
	if n.Kind == yaml.MappingNode && len(n.Content) > 2 {
		p.dedupeMapping(n, pointer)
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 1 {
			p.dedupe(c, jsonpointer.Join(pointer, n.Content[i-1].Value), depth+1)
		} else if n.Kind == yaml.SequenceNode {
			p.dedupe(c, jsonpointer.Join(pointer, strconv.Itoa(i)), depth+1)
		}
	}
}

func (p *prepass) dedupeMapping(n *yaml.Node, pointer string) {
	if !hasDuplicateKey(n) {
		return
	}
	last := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		last[n.Content[i].Value] = i
	}
	kept := n.Content[:0:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if last[k.Value] != i {
			later := n.Content[last[k.Value]]
			p.l.sink.warnf(loc{p.f.key, jsonpointer.Join(pointer, k.Value), later}, "", ruleDuplicateKey,
				"member %q is defined twice; the last definition is used", k.Value)
			continue
		}
		kept = append(kept, k, n.Content[i+1])
	}
	n.Content = kept
	p.f.repaired = true
}

// hasDuplicateKey is the cheap check that runs on every mapping: pairwise for
// small ones (no allocation), with a set for large ones.
func hasDuplicateKey(n *yaml.Node) bool {
	c := n.Content
	if len(c) <= 32 {
		for i := 0; i+1 < len(c); i += 2 {
			for j := i + 2; j+1 < len(c); j += 2 {
				if c[i].Value == c[j].Value {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]bool, len(c)/2)
	for i := 0; i+1 < len(c); i += 2 {
		if seen[c[i].Value] {
			return true
		}
		seen[c[i].Value] = true
	}
	return false
}

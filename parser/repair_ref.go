package parser

import (
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// checkRef follows one $ref: it loads the file it names, refuses remote files
// unless allowed, and repairs a reference whose target does not exist or is of
// the wrong kind.
func (p *repairer) checkRef(n *yaml.Node, ref string, kind nodeKind, s slot) {
	here := func() loc { return loc{p.f.key, s.pointer(), n} }
	file, frag := splitRef(ref)
	key := resolveFile(p.f.key, file)
	if isRemote(key) && !p.l.opts.AllowRemoteRefs {
		p.l.sink.errorf(here(), p.opAt(s.pointer()), ruleRemoteRef, "remote reference %q refused (allow it with --allow-remote-refs); replaced by %s", ref, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	if refused := p.refuseRead(key); refused != "" {
		p.l.sink.errorf(here(), p.opAt(s.pointer()), ruleRefOutside, "reference %q refused: %s; replaced by %s", ref, refused, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	target := p.l.file(key)
	if target == nil {
		p.l.sink.warnf(here(), "", ruleDanglingRef, "reference %q: file %s cannot be loaded; replaced by %s", ref, file, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	if found, _ := lookup(target.root, frag); found == nil {
		p.l.sink.warnf(here(), "", ruleDanglingRef, "reference %q points at nothing; replaced by %s", ref, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	if p.refLoops(p.f.key, ref) {
		p.l.sink.warnf(here(), "", ruleRefCycle, "reference %q leads back to itself through other references and names no value; replaced by %s", ref, p.replacement(kind, s))
		p.repair(n, kind, s)
		return
	}
	p.checkRefKind(n, ref, frag, target, kind, s)
}

// refuseRead says why the file key may not be read at all (a local file
// outside the allowed folder trees, a URL that is not http or https), or "".
// The reason names the rule, never anything read from the file.
func (p *repairer) refuseRead(key string) string {
	// Every reference is checked, most of them into the file they are in:
	// the verdict on a file is reached once (resolving symbolic links is a
	// system call per path element) and remembered for the load.
	if why, ok := p.l.refusals[key]; ok {
		return why
	}
	why := p.readRefusal(key)
	p.l.refusals[key] = why
	return why
}

func (p *repairer) readRefusal(key string) string {
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
func (p *repairer) opAt(pointer string) string {
	toks := strings.SplitN(strings.TrimPrefix(pointer, "/"), "/", 4)
	if p.f != p.l.root || len(toks) < 3 || toks[0] != "paths" || !isOperationKey(toks[2]) {
		return ""
	}
	path := jsonpointer.Unescape(toks[1])
	op := mapGet(mapGet(mapGet(p.f.root, "paths"), path), toks[2])
	if id := strings.TrimSpace(scalarString(mapGet(op, "operationId"))); id != "" {
		return id
	}
	return lowerGoName(toks[2] + " " + path)
}

// isOperationKey reports whether a path item member holds an operation
// (query and connect included, as kin-openapi reads them).
func isOperationKey(key string) bool {
	_, ok := ir.OperationMethod(key)
	return ok
}

// maxRefChain bounds how many references refLoops follows.
const maxRefChain = 64

// refLoops reports whether following ref (written in file from) through
// objects that are nothing but another $ref comes back to one already
// passed: such a loop names no value, and the loader would resolve it to
// nothing, so the element would vanish without a word.
func (p *repairer) refLoops(from, ref string) bool {
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
func (p *repairer) checkRefKind(n *yaml.Node, ref, frag string, target *docFile, kind nodeKind, s slot) {
	want := componentKinds[s.role]
	if kind == kSchema {
		want = "schemas"
	}
	got, ok := componentCollection(frag)
	if want == "" || !ok || got == want || (want == "schemas" && got == "definitions") {
		return
	}
	here := loc{p.f.key, s.pointer(), n}
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

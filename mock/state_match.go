package mock

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// stateKind is what a stateful operation does to its resource.
type stateKind string

const (
	stateCreate  stateKind = "create"
	stateList    stateKind = "list"
	stateGet     stateKind = "get"
	stateMerge   stateKind = "merge"   // PATCH, and POST on an item path
	stateReplace stateKind = "replace" // PUT
	stateDelete  stateKind = "delete"
)

// resourceDef is one resource the stateful mock found: a collection path
// with a POST, its item path (the collection and one more segment that is
// a whole parameter), and the id member of the created model.
type resourceDef struct {
	collection string
	item       string
	idMember   string
	idSchema   *openapi3.SchemaRef
	model      *openapi3.SchemaRef // what the create answers, and the store keeps
	ops        []string
}

// stateOp is how one operation uses its resource.
type stateOp struct {
	kind stateKind
	res  *resourceDef
	// items is where a list answer's items are (nil: the body itself).
	items []string
	// page is the list's paging contract from the parser's IR; nil: one
	// page of everything.
	page *ir.Pagination
	// declared are the members a PUT's request schema declares: those
	// the replacement sets or removes.
	declared map[string]bool
	// filters are a list's query parameters that select by a member.
	filters []listFilter
}

// Resource is one resource of a stateful mock: its collection and item
// path templates, the member of the created model that is its id, and the
// operations that serve it.
type Resource struct {
	Collection string `json:"collection"`
	Item       string `json:"item"`
	ID         string `json:"id"`
	Operations []string
}

// StatelessOperation is an operation a stateful mock answers as a
// stateless one does, and why it found no resource for it.
type StatelessOperation struct {
	Operation string
	Method    string
	Path      string
	Why       string
}

// Resources are the resources found by Options.Stateful, by collection.
func (s *Server) Resources() []Resource {
	var out []Resource
	for _, d := range s.resources {
		out = append(out, Resource{Collection: d.collection, Item: d.item, ID: d.idMember, Operations: d.ops})
	}
	return out
}

// Stateless are the operations Options.Stateful left stateless, by path
// and method, each with the reason.
func (s *Server) Stateless() []StatelessOperation {
	var out []StatelessOperation
	for _, r := range s.routes {
		if r.stateWhy != "" {
			out = append(out, StatelessOperation{Operation: r.id, Method: r.method, Path: r.path, Why: r.stateWhy})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// pageIndex is the paging contract of each operation, by "METHOD /path".
type pageIndex map[string]*ir.Pagination

// matchResources binds every operation it can to a resource, and gives
// every other one its reason to stay stateless.
func (s *Server) matchResources(pages pageIndex) {
	byPath := map[string][]*route{}
	for _, r := range s.routes {
		if r.query != nil {
			r.stateWhy = "its path key carries a fixed query"
			continue
		}
		byPath[shapeOf(r.path)] = append(byPath[shapeOf(r.path)], r)
	}
	for _, shape := range sortedKeys(byPath) {
		parent, param, ok := itemParent(byPath[shape][0].path)
		if !ok || byPath[shapeOf(parent)] == nil {
			continue
		}
		create := methodRoute(byPath[shapeOf(parent)], http.MethodPost)
		if create == nil {
			continue
		}
		d, why := resourceOf(create, param)
		if d == nil {
			for _, r := range append(byPath[shapeOf(parent)], byPath[shape]...) {
				r.stateWhy = why
			}
			continue
		}
		d.collection, d.item = create.path, byPath[shape][0].path
		s.bindResource(d, byPath[shapeOf(parent)], byPath[shape], pages)
	}
	for _, r := range s.routes {
		if r.state == nil && r.stateWhy == "" {
			r.stateWhy = noResourceWhy(r, byPath)
		}
	}
}

// bindResource gives the collection's and the item's operations their
// stateOp, or their reason to stay stateless.
func (s *Server) bindResource(d *resourceDef, collection, item []*route, pages pageIndex) {
	for _, group := range []struct {
		routes []*route
		onItem bool
	}{{collection, false}, {item, true}} {
		for _, r := range group.routes {
			if r.state != nil {
				continue // an item path that is also a collection path keeps its first resource
			}
			op, why := stateOpOf(r, d, group.onItem, pages[r.method+" "+r.path])
			if op == nil {
				r.stateWhy = why
				continue
			}
			r.state = op
			d.ops = append(d.ops, r.id)
		}
	}
	sort.Strings(d.ops)
	if create := methodRoute(collection, http.MethodPost); len(d.ops) == 1 && create.state != nil {
		// Nothing reads what it would store: it stays as it was.
		create.state = nil
		create.stateWhy = fmt.Sprintf("no operation reads what it creates (GET %s or %s)", d.item, d.collection)
		return
	}
	s.resources = append(s.resources, d)
}

// stateOpOf decides what r does to the resource d, checking that its
// answer can carry the resource.
func stateOpOf(r *route, d *resourceDef, onItem bool, page *ir.Pagination) (*stateOp, string) {
	kind := map[bool]map[string]stateKind{
		false: {http.MethodPost: stateCreate, http.MethodGet: stateList},
		true: {http.MethodGet: stateGet, http.MethodPatch: stateMerge, http.MethodPost: stateMerge,
			http.MethodPut: stateReplace, http.MethodDelete: stateDelete},
	}[onItem][r.method]
	if kind == "" {
		return nil, fmt.Sprintf("%s is not a resource operation on %s", r.method, map[bool]string{false: "a collection", true: "an item"}[onItem])
	}
	op := &stateOp{kind: kind, res: d}
	schema := successJSON(r.op)
	switch kind {
	case stateList:
		op, why := listOp(op, schema, page)
		if op != nil {
			op.filters = listFilters(r, op)
		}
		return op, why
	case stateGet, stateMerge, stateReplace:
		if schema == nil && kind == stateGet {
			return nil, "its success answer has no JSON body to carry the resource"
		}
		if schema != nil && memberOf(schema, d.idMember, 0) == nil {
			return nil, fmt.Sprintf("its success answer has no member %q (the id of %s)", d.idMember, d.collection)
		}
	}
	if kind == stateReplace {
		op.declared = declaredMembers(r.op)
	}
	return op, ""
}

// listOp finds the items of a list answer: where the paging contract says,
// else the body itself when it is an array, else its data, items or
// results array, else its only array member.
func listOp(op *stateOp, schema *openapi3.SchemaRef, page *ir.Pagination) (*stateOp, string) {
	if schema == nil {
		return nil, "its success answer has no JSON body to carry the list"
	}
	op.page = page
	if page != nil {
		op.items = page.Items
	} else if f, ok := itemsOf(schema); ok {
		op.items = f
	} else {
		return nil, "its success answer has no array of items"
	}
	arr := schemaAt(schema, op.items)
	if arr == nil || arr.Value == nil || arr.Value.Items == nil || memberOf(arr.Value.Items, op.res.idMember, 0) == nil {
		return nil, fmt.Sprintf("the items of its answer have no member %q", op.res.idMember)
	}
	return op, ""
}

// resourceOf reads the created model of a collection's POST: a JSON object
// with an id member named as the item path's parameter, else "id", else
// one whose name differs from the parameter only in case, "_" and "-".
func resourceOf(create *route, param string) (*resourceDef, string) {
	model := successJSON(create.op)
	if model == nil || model.Value == nil {
		return nil, fmt.Sprintf("POST %s answers no JSON model", create.path)
	}
	for _, name := range idCandidates(model, param) {
		id := memberOf(model, name, 0)
		if id == nil || id.Value == nil {
			continue
		}
		if t := id.Value.Type; t.Is("string") || t.Is("integer") || t.Is("number") {
			return &resourceDef{idMember: name, idSchema: id, model: model}, ""
		}
	}
	return nil, fmt.Sprintf("the model POST %s creates has no scalar id member (%q or \"id\")", create.path, param)
}

func idCandidates(model *openapi3.SchemaRef, param string) []string {
	out := []string{param, "id"}
	for _, name := range memberNames(model, 0) {
		if foldName(name) == foldName(param) {
			out = append(out, name)
		}
	}
	return out
}

// noResourceWhy says why r belongs to no resource.
func noResourceWhy(r *route, byPath map[string][]*route) string {
	if parent, _, ok := itemParent(r.path); ok && byPath[shapeOf(parent)] != nil {
		return fmt.Sprintf("no POST %s creates the items of %s", byPath[shapeOf(parent)][0].path, r.path)
	}
	if _, _, ok := itemParent(r.path); ok {
		return fmt.Sprintf("no collection path beside the item path %s", r.path)
	}
	path, ext := r.path, ""
	if i := strings.LastIndexByte(path, '.'); i > strings.LastIndexByte(path, '/') && !strings.ContainsAny(path[i:], "{}") {
		path, ext = path[:i], path[i:]
	}
	return fmt.Sprintf("no item path %s/{id}%s beside it", path, ext)
}

// itemParent splits an item path ("/orders/{order_id}") into its
// collection path and parameter; ok is false unless the last segment is a
// whole parameter, or a parameter and a suffix that the collection path
// has too (Twilio's "/Calls/{Sid}.json" beside "/Calls.json").
func itemParent(path string) (parent, param string, ok bool) {
	i := strings.LastIndexByte(path, '/')
	last := path[i+1:]
	end := strings.IndexByte(last, '}')
	if i <= 0 || len(last) < 3 || last[0] != '{' || end < 2 || strings.ContainsAny(last[1:end], "{") {
		return "", "", false
	}
	suffix := last[end+1:]
	if suffix != "" && (suffix[0] != '.' || strings.ContainsAny(suffix, "{}")) {
		return "", "", false
	}
	return path[:i] + suffix, last[1:end], true
}

// shapeOf is a path template with its parameter names left out, so that
// "/users/{user}/keys" and "/users/{username}/keys/{id}" line up.
func shapeOf(path string) string { return paramRE.ReplaceAllString(path, "{}") }

func methodRoute(routes []*route, method string) *route {
	for _, r := range routes {
		if r.method == method {
			return r
		}
	}
	return nil
}

// successJSON is the schema of the JSON body of the success answer the
// mock sends by default; nil when it has none.
func successJSON(op *openapi3.Operation) *openapi3.SchemaRef {
	resp, status := pickResponse(op, 0)
	if resp == nil || status < 200 || status > 299 {
		return nil
	}
	for _, k := range sortedKeys(resp.Content) {
		if isJSON(mediaBase(k)) && resp.Content[k] != nil && resp.Content[k].Schema != nil {
			return resp.Content[k].Schema
		}
	}
	return nil
}

// declaredMembers are the top-level members of an operation's JSON request
// schema.
func declaredMembers(op *openapi3.Operation) map[string]bool {
	out := map[string]bool{}
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return out
	}
	for _, k := range sortedKeys(op.RequestBody.Value.Content) {
		if media := op.RequestBody.Value.Content[k]; media != nil && media.Schema != nil {
			for _, n := range memberNames(media.Schema, 0) {
				out[n] = true
			}
		}
	}
	return out
}

// enableState opens the store and binds the operations to resources, with
// the paging contracts the parser reads from the same document; without
// them (the parser refused it) lists answer one page of everything.
func (s *Server) enableState(api *ir.API, diags ir.Diagnostics, err error) {
	s.state = newStateStore(s.opts.StateLimit)
	pages := pageIndex{}
	if err == nil && api != nil {
		for _, op := range api.Operations {
			if op.Pagination != nil {
				pages[op.Method+" "+op.Path] = op.Pagination
			}
		}
	} else {
		s.warnings = append(s.warnings, fmt.Sprintf("warning: %s: stateful lists are not paged: %v", s.name, err))
	}
	s.matchResources(pages)
}

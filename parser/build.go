package parser

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/ir"
)

// builder turns kin-openapi's model into the IR, walking the YAML trees
// alongside it for locations and extension values.
type builder struct {
	l       *loader
	doc     *openapi3.T
	api     *ir.API
	schemas *schemaBuilder
	rootLoc loc
	// rootRetry is the document-level x-retryable-status.
	rootRetry *statusList
	pathExts  map[*yaml.Node]pathExt
	// lookups are the x-lookup values read, resolved after every operation.
	lookups []*pendingLookup
	// undeclared holds a placeholder scheme for each name a security
	// requirement gives that components.securitySchemes does not declare.
	undeclared map[string]*ir.SecurityScheme
}

func build(l *loader, doc *openapi3.T, version string) *ir.API {
	b := &builder{l: l, doc: doc, rootLoc: loc{l.root.key, "", l.root.root}}
	b.api = &ir.API{OpenAPI: version, Source: l.sink.source(b.rootLoc)}
	if doc.Info != nil {
		b.api.Title, b.api.Version, b.api.Description = doc.Info.Title, doc.Info.Version, doc.Info.Description
	}
	b.api.Servers = serverList(doc.Servers)
	b.api.BasePath = basePath(b.api.Servers, version == "2.0")
	b.schemas = newSchemaBuilder(b)
	b.schemas.declareComponents()
	b.api.SecuritySchemes = b.securitySchemes()
	root := extReader{sink: l.sink}
	b.rootRetry = root.retryable(b.rootLoc)
	if b.rootLoc.at(extIdempotent).node != nil {
		l.sink.warnf(b.rootLoc.at(extIdempotent), "", ruleIdempotentPlace,
			"x-idempotent is not read at the document root; put it on path items or operations")
	}
	if b.rootLoc.at(extPagination).node != nil {
		l.sink.warnf(b.rootLoc.at(extPagination), "", rulePaginationPlace,
			"x-pagination is not read at the document root; put it on path items or operations")
	}
	b.api.Operations = b.operations()
	b.api.SecuritySchemes = b.withUndeclaredSchemes(b.api.SecuritySchemes)
	checkWaiterNames(l.sink, b.api.Operations)
	b.resolveLookups()
	b.api.Webhooks = b.webhooks()
	b.api.Schemas = b.schemas.finish()
	return b.api
}

// follow returns where the object at l really is: the target of its $ref
// (followed through chains, across files), or l itself.
func (b *builder) follow(l loc) loc {
	for i := 0; i < 32; i++ {
		ref := scalarString(mapGet(unalias(l.node), "$ref"))
		if ref == "" {
			return l
		}
		file, frag := splitRef(ref)
		key := resolveFile(l.file, file)
		f := b.l.files[key]
		if f == nil || f.root == nil {
			return l
		}
		found, _ := lookup(f.root, frag)
		if found == nil {
			return l
		}
		l = loc{key, frag, found}
	}
	return l
}

// methodOrder lists the operations of a path item in a fixed order.
var methodOrder = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY", "CONNECT"}

// rawOp is an operation found in the document, before naming.
type rawOp struct {
	// key is the path key as written, path and query what it holds
	// before and after "?" (less any "#" suffix).
	key, path, query, method string
	// id is the operation's identity (assignIdentities).
	id         string
	item       *openapi3.PathItem
	op         *openapi3.Operation
	itemAt, at loc
	goName     string
}

// operations collects every operation, gives each its identity and its Go
// name (never one of ir.ClientMethods), and builds them in GoName order (so
// inline schema names are assigned deterministically).
func (b *builder) operations() []*ir.Operation {
	raws := b.rawOps()
	sort.SliceStable(raws, func(i, j int) bool {
		a, c := raws[i], raws[j]
		if a.goName != c.goName {
			return a.goName < c.goName
		}
		if a.path != c.path {
			return a.path < c.path
		}
		return a.method < c.method
	})
	assignIdentities(b.l.sink, raws)
	names := newNamer(ir.ClientMethods...)
	for _, r := range raws {
		r.goName = names.unique(r.goName)
	}
	sort.SliceStable(raws, func(i, j int) bool { return raws[i].goName < raws[j].goName })
	ops := make([]*ir.Operation, 0, len(raws))
	for _, r := range raws {
		ops = append(ops, b.operation(r))
	}
	return ops
}

func (b *builder) rawOps() []*rawOp {
	if b.doc.Paths == nil {
		return nil
	}
	pathsAt := b.rootLoc.at("paths")
	m := b.doc.Paths.Map()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var raws []*rawOp
	for _, key := range keys {
		item := m[key]
		if item == nil {
			continue
		}
		itemAt := b.follow(pathsAt.at(key))
		// A "#…" suffix only tells two path items apart in the document
		// (Box's "/shared_items#app_items" beside "/shared_items"): a URL's
		// fragment is never sent, so it is not part of the request path.
		// Left in the template it would go out percent-encoded ("%23…")
		// and hit another route.
		path, _, _ := strings.Cut(key, "#")
		path, query, _ := strings.Cut(path, "?")
		if query != "" {
			b.l.sink.warnf(pathsAt.at(key), "", rulePathQuery,
				"path %q carries a query string; it is sent as a fixed query (%s) with every call", key, query)
		}
		ops := item.Operations()
		for _, method := range methodOrder {
			op := ops[method]
			if op == nil {
				continue
			}
			r := &rawOp{key: key, path: path, query: query, method: method, item: item, op: op,
				itemAt: itemAt, at: itemAt.at(strings.ToLower(method))}
			r.goName = GoName(opID(r))
			raws = append(raws, r)
		}
	}
	return raws
}

// opID is the operationId, or a name made from the method and path
// ("get /orders/{order_id}" -> getOrdersOrderID).
func opID(r *rawOp) string {
	if id := strings.TrimSpace(r.op.OperationID); id != "" {
		return id
	}
	name := lowerGoName(strings.ToLower(r.method) + " " + r.path)
	if r.query != "" {
		name += GoName(r.query)
	}
	return name
}

func (b *builder) operation(r *rawOp) *ir.Operation {
	op := &ir.Operation{
		ID: r.id, OperationID: strings.TrimSpace(r.op.OperationID), GoName: r.goName, Method: r.method, Path: r.path, Query: r.query,
		Tags: r.op.Tags, Summary: r.op.Summary, Description: r.op.Description,
		Deprecated: r.op.Deprecated, Source: b.l.sink.source(r.at),
	}
	if len(op.Tags) > 0 {
		op.Tag = op.Tags[0]
	}
	params := b.mergeParams(r, op.ID)
	op.Retry = b.contract(r, op.ID, params)
	op.Params = b.params(r, op, params)
	op.Body = b.body(r, op)
	op.Responses = b.responses(r, op)
	op.Security = b.security(r, op.ID)
	op.Pagination = b.pagination(r, op)
	op.Waiters = b.waiters(r, op)
	b.readLookup(r, op)
	op.Servers = b.operationServers(r, op.ID)
	return op
}

// contract reads both extensions at every level and resolves the contract.
func (b *builder) contract(r *rawOp, id string, params []*paramRef) ir.RetryContract {
	shared := extReader{sink: b.l.sink}
	own := extReader{sink: b.l.sink, op: id}
	lv := levels{
		rootRetry: b.rootRetry,
		pathRetry: b.pathItemExt(r.itemAt, shared).retry,
		pathIdem:  b.pathItemExt(r.itemAt, shared).idem,
		opRetry:   own.retryable(r.at),
		opIdem:    own.idempotent(r.at),
		annotated: r.at.at(extIdempotent).node != nil || r.itemAt.at(extIdempotent).node != nil,
	}
	var headers []headerParam
	for _, p := range params {
		if p.p.In == openapi3.ParameterInHeader {
			headers = append(headers, headerParam{name: p.p.Name, required: p.p.Required, at: p.at})
		}
	}
	c := resolveContract(b.l.sink, r.method, lv, headers)
	lintContract(b.l.sink, id, r.at, r.method, lv, c, headers)
	c.Summary = contractSummary(r.goName, c)
	return c
}

// pathItemExt parses a path item's extensions once, however many operations
// share it, so each finding is reported once.
func (b *builder) pathItemExt(at loc, r extReader) pathExt {
	if b.pathExts == nil {
		b.pathExts = map[*yaml.Node]pathExt{}
	}
	if e, ok := b.pathExts[at.node]; ok && at.node != nil {
		return e
	}
	e := pathExt{retry: r.retryable(at), idem: r.idempotent(at)}
	b.pathExts[at.node] = e
	return e
}

type pathExt struct {
	retry *statusList
	idem  *idempotency
}

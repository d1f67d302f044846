package generator

import (
	"github.com/idemgen/idemgen/ir"
)

// generation holds the state of one Generate call: the IR, the config and
// every identifier handed out, which the emit functions share as receivers.
type generation struct {
	api *ir.API
	cfg Config
	// ns holds every package-level identifier handed out.
	ns namespace
	// typeNames maps each named declaration to its Go type name (the IR's
	// GoName unless it collides with an identifier the client itself needs).
	typeNames map[*ir.Schema]string
	// byPointer marks required struct fields that must be pointers because
	// they close a cycle of structs embedding each other by value.
	byPointer map[fieldEdge]bool
	// opNames holds the identifiers derived from each operation.
	opNames map[*ir.Operation]*opIdents
	// schemeNames maps each security scheme to its option function name.
	schemeNames map[*ir.SecurityScheme]string
	// sourceNames maps each security scheme to its credential-source
	// option name (With<Scheme>Source), when it has one.
	sourceNames map[*ir.SecurityScheme]string
	// securityNames are a generated server's SecurityHandler interface
	// and its binding function; "" when the server checks no scheme
	// (emit_server_security.go).
	securityNames [2]string
	// oauthNames are the OAuth2 options of the schemes with a client
	// credentials flow (emit_oauth.go).
	oauthNames map[*ir.SecurityScheme]oauthIdents
	// uploads marks the schemas of multipart bodies (emit_upload.go).
	uploads map[*ir.Schema]bool
	// enumConsts maps enum declarations to their constant names, by value
	// index.
	enumConsts map[*ir.Schema][]string
	// unionCtors maps union declarations to their constructor names, by
	// variant index (emit_union.go).
	unionCtors map[*ir.Schema][]string
	// versionConst is set when doc.go may declare APIVersion: no other
	// identifier took the name.
	versionConst bool
	// docs remembers converted comments (comment_cache.go).
	docs *docCache
	// serverURLs are the operation servers in URL order, serverNames
	// their constants (emit_server_urls.go).
	serverURLs  []string
	serverNames map[string]string
	// serverUsers lists the operations sent to each operation server.
	serverUsers map[string][]string
	// waiterNames names each waiter's method and contract (emit_waiter.go).
	waiterNames map[*ir.Waiter]waiterIdents
	// lookupNames names the lookup methods of each operation with an
	// x-lookup the client can send, lookupOps lists those operations, and
	// intentLooker says whether the client has LookupIntent (emit_lookup.go).
	lookupNames  map[*ir.Operation]lookupIdents
	lookupOps    []*ir.Operation
	intentLooker bool
}

// opIdents are the identifiers emitted for one operation.
type opIdents struct {
	// contract is the unexported idemrt.Operation variable ("createOrderOp").
	contract string
	// errorModel is the unexported error-model function, or "".
	errorModel string
	// params and result are the exported type names, or "" when not needed.
	params string
	result string
	// iter, pages and pager name a paginated operation's iterator methods
	// and their Pager constructor ("" for none; emit_pager.go).
	iter, pages, pager string
	// stream and download name the <Op>Stream and <Op>Download methods, or
	// "" when the operation has none (method_return.go).
	stream   string
	download string
	// route names the idemsrv.Route variable of a generated server
	// ("createOrderRoute"; emit_server.go), "" without --server;
	// streamRoute the one of its <Op>Stream form, "" when it has none.
	route, streamRoute string
}

// newGen prepares a generation run.
func newGen(api *ir.API, cfg Config) *generation {
	return &generation{
		api:         api,
		cfg:         cfg,
		ns:          namespace{},
		typeNames:   map[*ir.Schema]string{},
		opNames:     map[*ir.Operation]*opIdents{},
		schemeNames: map[*ir.SecurityScheme]string{},
		sourceNames: map[*ir.SecurityScheme]string{},
		uploads:     map[*ir.Schema]bool{},
		enumConsts:  map[*ir.Schema][]string{},
		unionCtors:  map[*ir.Schema][]string{},
		docs:        newDocCache(len(api.Schemas) + len(api.Operations)),
	}
}

// reserveNames hands out every package-level identifier in a fixed order:
// the client's own names first (their spelling is the public surface), then
// each operation's types, then the schemas (renamed with a "Model" suffix on
// collision), then enum constants.
func (g *generation) reserveNames(ops []*ir.Operation) {
	for _, n := range []string{"Client", "NewClient", "DefaultServerURL", "API"} {
		g.ns.claim(n, "")
	}
	g.reserveWebhooks()
	if g.cfg.Server {
		for _, n := range []string{"Handler", "Server", "NewServer"} {
			g.ns.claim(n, "")
		}
		if len(g.serverSchemes()) > 0 {
			g.securityNames = [2]string{g.ns.claim("SecurityHandler", ""), g.ns.claim("bindSecurity", "")}
		}
	}
	for _, s := range g.api.SecuritySchemes {
		if schemeSupported(s) {
			g.schemeNames[s] = g.ns.claim("With"+s.GoName, "Auth")
		}
	}
	for _, s := range g.api.SecuritySchemes {
		if sourceSupported(s) {
			g.sourceNames[s] = g.ns.claim("With"+s.GoName+"Source", "Auth")
		}
	}
	g.reserveOAuth()
	g.reserveServers(ops)
	for _, op := range ops {
		g.reserveOp(op)
	}
	g.reservePagers(ops)
	g.reserveAltMethods(ops)
	g.reserveWaiters(ops)
	g.reserveLookups(ops)
	for _, s := range g.api.Schemas {
		g.typeNames[s] = g.ns.claim(s.GoName, "Model")
	}
	for _, s := range g.api.Schemas {
		if s.Kind == ir.KindEnum {
			g.reserveEnum(s)
		}
	}
	for _, s := range g.api.Schemas {
		if s.Kind == ir.KindUnion {
			g.reserveUnionCtors(s)
		}
	}
	g.byPointer = valueCycles(g.api.Schemas)
	// APIVersion is claimed last, so it never renames a type of the
	// document; a document that has its own APIVersion keeps it.
	if !g.ns["APIVersion"] {
		g.versionConst = g.ns.claim("APIVersion", "") == "APIVersion"
	}
}

// reserveOp names an operation's contract variable, error-model function,
// params and result types.
func (g *generation) reserveOp(op *ir.Operation) {
	low := lowerFirst(op.GoName)
	ids := &opIdents{contract: g.ns.claim(low+"Op", "")}
	if len(errorResponses(op)) > 0 {
		ids.errorModel = g.ns.claim(low+"ErrorModel", "")
	}
	if needsParams(op) {
		ids.params = g.ns.claim(op.GoName+"Params", "_")
	}
	if needsResult(op) {
		ids.result = g.ns.claim(op.GoName+"Result", "_")
	}
	if g.cfg.Server {
		ids.route = g.ns.claim(low+"Route", "")
		if altStream(op) {
			ids.streamRoute = g.ns.claim(low+"StreamRoute", "")
		}
	}
	g.opNames[op] = ids
}

// reserveEnum names an enum's constants: the type name followed by the
// value's name.
func (g *generation) reserveEnum(s *ir.Schema) {
	names := make([]string, len(s.Enum))
	for i, v := range s.Enum {
		names[i] = g.ns.claim(g.typeNames[s]+v.GoName, "Value")
	}
	g.enumConsts[s] = names
}

// typeName returns the Go name of a named declaration.
func (g *generation) typeName(s *ir.Schema) string {
	if n, ok := g.typeNames[s]; ok {
		return n
	}
	// A declaration the parser did not list: fall back to its own GoName.
	return s.GoName
}

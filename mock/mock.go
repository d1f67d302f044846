// Package mock serves an OpenAPI document: it validates every request with
// kin-openapi's openapi3filter, answers from the document's examples or from
// values built from the response schemas, runs keyed operations through the
// project's idempotency ledger, and injects the faults the retry protocol is
// about (a lost response after the commit, a reset, a status storm with
// Retry-After, latency, slow bodies, a cut event stream). It counts
// executions per operation and per key so that tests can assert "one
// execution". See docs/mock.md.
//
// SDK users import it as
//
//	import idemgenmock "github.com/idemgen/idemgen/mock"
//
//	srv := idemgenmock.Start(t, "api.yaml", idemgenmock.DropAfterCommit().Times(1))
package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/parser"

	"github.com/idemgen/idemgen/internal/ctxtime"
)

// StatsPath is the admin endpoint: GET gives the counts as JSON, DELETE
// resets them.
const StatsPath = "/__idemgen/stats"

// Options configure a Server. The zero value serves static answers with an
// in-memory-like ledger in a temporary SQLite file.
type Options struct {
	// Faults apply to every request they match; requests add their own with
	// the X-Idemgen-Fault header.
	Faults []Fault
	// Dynamic draws values at random (from Seed) instead of the static,
	// repeatable ones.
	Dynamic bool
	// Seed seeds the random source of dynamic values and of storm
	// probabilities.
	Seed uint64
	// Ledger is the SQLite file of the idempotency ledger; empty means a
	// temporary file removed by Close.
	Ledger string
	// Proxy, when set, forwards every request to this server instead of
	// answering it, validating requests and responses and logging every
	// mismatch.
	Proxy *url.URL
	// Log receives one line per request; nil discards them.
	Log io.Writer
	// MaxBody bounds a request body (default 1 MiB; larger ones get 413)
	// and, in proxy mode, a response body read for validation (16 times it).
	MaxBody int64
	// Sleep waits for latency and slow-body faults; tests may inject one.
	Sleep func(ctx context.Context, d time.Duration) error
	// Overlays are OpenAPI Overlay 1.0 files New applies, in order, to the
	// document before serving it (see Server.Warnings).
	Overlays []string
	// Stateful keeps the resources the operations create, read, update,
	// list and delete (see Server.Resources and Server.Stateless).
	Stateful bool
	// StateLimit bounds the resources a stateful mock holds (default
	// DefaultStateLimit); past it a create is answered 507.
	StateLimit int
}

// Server is the mock, an http.Handler. Close it to release the ledger.
type Server struct {
	doc    *openapi3.T
	name   string
	opts   Options
	routes []*route
	bases  []string // base paths of the document's servers
	// unionRecursive says, per request and response body schema, whether it recurses
	// through a oneOf or anyOf (see maxUnionNesting).
	unionRecursive map[*openapi3.Schema]bool

	store  io.Closer
	tmpDir string

	mu       sync.Mutex
	rnd      *rand.Rand
	stats    map[string]*OpStats
	applied  map[string]int // fault -> times applied, for Limit
	versions map[string]int // resource path -> version, for ETag/If-Match
	logMu    sync.Mutex
	warnings []string

	state     *stateStore // nil unless Options.Stateful
	resources []*resourceDef
}

type route struct {
	id       string // operationId, or "METHOD /path"
	method   string
	path     string
	re       *regexp.Regexp
	names    []string
	literal  int
	item     *openapi3.PathItem
	op       *openapi3.Operation
	kroute   *routers.Route
	key      string // key header of a keyed operation
	keyOpt   bool   // the key may be absent
	creds    []credential
	ledger   *ledger.Ledger // a keyed operation's
	ifMatch  bool
	etag     bool
	safe     bool
	hasMedia map[string]bool
	query    url.Values // a fixed query written into the path key
	state    *stateOp   // stateful: what it does to its resource
	stateWhy string     // stateful: why it has no resource
}

// New loads the document at path and builds a Server.
func New(path string, opts Options) (*Server, error) {
	doc, warnings, err := loadFile(path, opts.Overlays)
	if err != nil {
		return nil, err
	}
	s, err := newServer(doc, path, opts)
	if s != nil {
		s.warnings = warnings
		if opts.Stateful {
			s.enableState(parser.Load(path, parser.Options{Overlays: opts.Overlays}))
		}
	}
	return s, err
}

// NewData builds a Server from a document's bytes (JSON or YAML); name is
// used in messages. External references are not followed.
func NewData(name string, data []byte, opts Options) (*Server, error) {
	loader := openapi3.NewLoader()
	var doc *openapi3.T
	var err error
	if swagger2.Match(head(data)) {
		doc, err = fromSwagger2(loader, data, name)
	} else {
		doc, err = loader.LoadFromData(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := newServer(doc, name, opts)
	if s != nil && opts.Stateful {
		s.enableState(parser.LoadData(name, data, parser.Options{}))
	}
	return s, err
}

func loadFile(path string, overlays []string) (*openapi3.T, []string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	root := filepath.Dir(abs)
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	// References never leave the document's folder.
	loader.ReadFromURIFunc = func(l *openapi3.Loader, u *url.URL) ([]byte, error) {
		if u.Scheme != "" && u.Scheme != "file" || u.Host != "" {
			return nil, fmt.Errorf("reference %s: only files beside the document are read", u)
		}
		p, err := filepath.Abs(filepath.FromSlash(u.Path))
		if err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("reference %s leaves the folder of %s", u, path)
		}
		return os.ReadFile(p)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, nil, err
	}
	data, warnings, err := applyOverlays(path, data, overlays)
	if err != nil {
		return nil, nil, err
	}
	var doc *openapi3.T
	if swagger2.Match(head(data)) {
		doc, err = fromSwagger2(loader, data, abs)
	} else {
		doc, err = loader.LoadFromDataWithPath(data, &url.URL{Path: filepath.ToSlash(abs)})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, warnings, nil
}

// swagger2 spots a Swagger 2.0 document by its version key.
var swagger2 = regexp.MustCompile(`(?m)^\s*"?swagger"?\s*:\s*["']?2\.`)

func head(b []byte) []byte { return b[:min(len(b), 4096)] }

// stringKeys makes YAML mappings JSON objects (a `200:` key is an integer
// in YAML).
func stringKeys(v any, depth int) any {
	if depth > 512 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = stringKeys(e, depth+1)
		}
		return x
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = stringKeys(e, depth+1)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = stringKeys(e, depth+1)
		}
		return x
	}
	return v
}

// fromSwagger2 converts a Swagger 2.0 document (YAML or JSON) with
// kin-openapi's openapi2conv.
func fromSwagger2(loader *openapi3.Loader, data []byte, abs string) (*openapi3.T, error) {
	var tree any
	if err := yaml.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	js, err := json.Marshal(stringKeys(tree, 0))
	if err != nil {
		return nil, err
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(js, &doc2); err != nil {
		return nil, err
	}
	return openapi2conv.ToV3WithLoader(&doc2, loader, &url.URL{Path: filepath.ToSlash(abs)})
}

func newServer(doc *openapi3.T, name string, opts Options) (*Server, error) {
	if opts.MaxBody <= 0 {
		opts.MaxBody = 1 << 20
	}
	if opts.Sleep == nil {
		opts.Sleep = ctxtime.Sleep
	}
	s := &Server{
		doc: doc, name: name, opts: opts,
		unionRecursive: map[*openapi3.Schema]bool{},
		rnd:            rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		stats:          map[string]*OpStats{},
		applied:        map[string]int{},
		versions:       map[string]int{},
	}
	s.addRoutes()
	s.bases = basePaths(doc.Servers)
	if err := s.openLedger(); err != nil {
		return nil, err
	}
	return s, nil
}

// addRoutes makes a route of every operation, the most specific first.
func (s *Server) addRoutes() {
	if s.doc.Paths != nil {
		for _, p := range s.doc.Paths.InMatchingOrder() {
			item := s.doc.Paths.Value(p)
			for method, op := range item.Operations() {
				s.addRoute(p, item, method, op)
			}
		}
	}
	s.nameRoutes()
	cycles := newUnionCycles()
	for _, r := range s.routes {
		s.noteUnionRecursion(r.op, cycles)
	}
	// The most specific template wins: more literal characters first.
	sort.SliceStable(s.routes, func(i, j int) bool {
		a, b := s.routes[i], s.routes[j]
		if a.literal != b.literal {
			return a.literal > b.literal
		}
		if len(a.query) != len(b.query) {
			return len(a.query) > len(b.query) // "/responses?beta=true" before "/responses"
		}
		if a.path != b.path {
			return a.path < b.path
		}
		return a.method < b.method
	})
}

// basePaths are the paths of the servers with a fixed URL, which requests
// may be routed below.
func basePaths(servers openapi3.Servers) []string {
	var out []string
	for _, srv := range servers {
		if srv == nil || strings.Contains(srv.URL, "{") {
			continue
		}
		if u, err := url.Parse(srv.URL); err == nil {
			if p := strings.TrimSuffix(u.Path, "/"); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// defaultKeyHeader is the draft's key header, which makes an operation that
// declares it keyed (DESIGN.md section 3).
const defaultKeyHeader = "Idempotency-Key"

var paramRE = regexp.MustCompile(`\{[^{}/]+\}`)

func (s *Server) addRoute(path string, item *openapi3.PathItem, method string, op *openapi3.Operation) {
	r := &route{method: method, path: path, item: item, op: op, hasMedia: map[string]bool{}}
	r.compileTemplate(path)
	r.kroute = &routers.Route{Spec: s.doc, Path: path, PathItem: item, Method: method, Operation: op}
	r.safe = method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
	r.key, r.keyOpt = keyOf(item, op)
	r.creds = credentialsOf(s.doc, op)
	for _, p := range params(item, op) {
		if p.In == openapi3.ParameterInHeader && strings.EqualFold(p.Name, "If-Match") {
			r.ifMatch = true
		}
	}
	r.etag = declaresResponseHeader(op, "ETag")
	s.routes = append(s.routes, r)
}

// nameRoutes names each route as a generated client names its operation
// (docs/generator.md, "Operation identity"): its operationId when no other
// operation's is the same compared without case and it reads like no
// operation's "METHOD /path", else its own "METHOD /path". Stats, faults
// (@operationId) and the ledger's scope use the name; it never depends on
// the order routes are met in (a path item's operations come as a map).
func (s *Server) nameRoutes() {
	uses := make(map[string]int, 2*len(s.routes))
	for _, r := range s.routes {
		uses[strings.ToLower(r.method+" "+r.path)]++
		if r.op.OperationID != "" {
			uses[strings.ToLower(r.op.OperationID)]++
		}
	}
	for _, r := range s.routes {
		r.id = r.op.OperationID
		if r.id == "" || uses[strings.ToLower(r.id)] > 1 {
			r.id = r.method + " " + r.path
		}
	}
}

// compileTemplate makes the route's regular expression, parameter names,
// fixed query and count of literal characters from its path key.
func (r *route) compileTemplate(path string) {
	var pat strings.Builder
	pat.WriteString("^")
	last := 0
	// Some documents put a fixed query in the path key ("/responses?beta=true");
	// the path alone routes. A "#…" suffix is never sent (see the parser).
	tmpl, _, _ := strings.Cut(path, "#")
	tmpl, fixed, _ := strings.Cut(tmpl, "?")
	if fixed != "" {
		r.query, _ = url.ParseQuery(fixed)
	}
	for _, loc := range paramRE.FindAllStringIndex(tmpl, -1) {
		lit := tmpl[last:loc[0]]
		pat.WriteString(regexp.QuoteMeta(lit))
		r.literal += len(lit)
		pat.WriteString("([^/]+)")
		r.names = append(r.names, path[loc[0]+1:loc[1]-1])
		last = loc[1]
	}
	pat.WriteString(regexp.QuoteMeta(tmpl[last:]))
	r.literal += len(tmpl) - last
	pat.WriteString("$")
	r.re = regexp.MustCompile(pat.String())
}

// declaresResponseHeader reports whether any response of op declares the
// header name.
func declaresResponseHeader(op *openapi3.Operation, name string) bool {
	if op.Responses == nil {
		return false
	}
	for _, resp := range op.Responses.Map() {
		if resp.Value == nil {
			continue
		}
		for h := range resp.Value.Headers {
			if strings.EqualFold(h, name) {
				return true
			}
		}
	}
	return false
}

func params(item *openapi3.PathItem, op *openapi3.Operation) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range ps {
			if p != nil && p.Value != nil {
				out = append(out, p.Value)
			}
		}
	}
	return out
}

// Close releases the ledger and removes its temporary file.
func (s *Server) Close() error {
	var err error
	if s.store != nil {
		err = s.store.Close()
		s.store = nil
	}
	s.removeTmp()
	return err
}

func (s *Server) removeTmp() {
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
		s.tmpDir = ""
	}
}

// Operations is the number of operations served.
func (s *Server) Operations() int { return len(s.routes) }

// Warnings are the findings of applying Options.Overlays, one line each
// (`warning: file:line:col: message [rule]`).
func (s *Server) Warnings() []string { return s.warnings }

// Document is the loaded document.
func (s *Server) Document() *openapi3.T { return s.doc }

// match finds the route of a request, also below one of the document's
// server base paths ("/v1/orders" for a server "https://api.example.com/v1");
// allowed lists the methods of a path that matched with another method.
func (s *Server) match(method string, u *url.URL) (*route, map[string]string, []string) {
	path, query := u.Path, u.Query()
	r, vals, allowed := s.matchPath(method, path, query)
	if r != nil {
		return r, vals, nil
	}
	for _, base := range s.bases {
		if rest, ok := strings.CutPrefix(path, base); ok && strings.HasPrefix(rest, "/") {
			if r, vals, more := s.matchPath(method, rest, query); r != nil {
				return r, vals, nil
			} else if len(allowed) == 0 {
				allowed = more
			}
		}
	}
	return nil, nil, allowed
}

func (s *Server) matchPath(method, path string, query url.Values) (*route, map[string]string, []string) {
	var allowed []string
	for _, r := range s.routes {
		m := r.re.FindStringSubmatch(path)
		if m == nil || !hasQuery(query, r.query) {
			continue
		}
		if r.method != method {
			allowed = append(allowed, r.method)
			continue
		}
		vals := make(map[string]string, len(r.names))
		for i, n := range r.names {
			v, err := url.PathUnescape(m[i+1])
			if err != nil {
				v = m[i+1]
			}
			vals[n] = v
		}
		return r, vals, nil
	}
	sort.Strings(allowed)
	return nil, nil, allowed
}

// hasQuery reports whether q carries every fixed parameter.
func hasQuery(q, fixed url.Values) bool {
	for k, vs := range fixed {
		for _, v := range vs {
			if !slices.Contains(q[k], v) {
				return false
			}
		}
	}
	return true
}

// readBody reads at most max bytes; a longer body is an error.
func readBody(r *http.Request, max int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

var errTooLarge = errors.New("request body too large")

// Package annotate adds the retry-contract extension x-idempotent to the
// operations of an OpenAPI document that lack it, so a team can start from a
// sane baseline and then correct the few operations the method gets wrong.
//
// The rules, per operation that has no x-idempotent of its own and whose path
// item has none either, are the parser's (ir.InferredSafety, ir.IsKeyHeader),
// so an annotated document resolves to the contracts the parser inferred:
//
//   - an operation with a header parameter named Idempotency-Key (any case,
//     inline or through a $ref inside the same file, on the operation or its
//     path item) gets `x-idempotent: {key: {in: header, name: <its name>}}`,
//     whatever its method;
//   - other GET, HEAD, OPTIONS, TRACE, PUT, DELETE and QUERY get
//     `x-idempotent: true` (RFC 9110 calls them idempotent);
//   - other POST, PATCH and CONNECT get `x-idempotent: false`.
//
// Edits are spliced into the original bytes at positions taken from the parsed
// tree, with the indentation and line endings of the surrounding lines, so
// every byte the tool does not add stays as it was: comments, key order,
// quoting and indentation survive. JSON documents stay JSON.
package annotate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// Value is the x-idempotent form an edit adds.
type Value int

const (
	// True is `x-idempotent: true`.
	True Value = iota
	// False is `x-idempotent: false`.
	False
	// Keyed is `x-idempotent: {key: {in: header, name: ...}}`.
	Keyed
)

// String returns the value as the docs name it.
func (v Value) String() string {
	switch v {
	case False:
		return "false"
	case Keyed:
		return "keyed"
	default:
		return "true"
	}
}

// Edit is one x-idempotent added to one operation.
type Edit struct {
	// Method is upper case; Path is the path template as written.
	Method string
	Path   string
	// Line is the line of the operation in the original document.
	Line  int
	Value Value
	// KeyName is the key header's name as the spec spells it (Keyed only).
	KeyName string
	// pathIndex and opIndex locate the operation by position (the paths
	// entry, the path item entry), which survives duplicate keys and the
	// insertion itself.
	pathIndex, opIndex int
	// methodKey is the operation's key as written ("post").
	methodKey string
}

// Note reports an operation annotate left alone although it lacks
// x-idempotent, and why (a shared YAML anchor, a $ref to another file...).
type Note struct {
	Line    int
	Column  int
	Pointer string
	Message string
}

// String renders the note as `line:col: (pointer): message`.
func (n Note) String() string {
	return fmt.Sprintf("%d:%d: (%s): %s", n.Line, n.Column, n.Pointer, n.Message)
}

// Result is the outcome of annotating one document.
type Result struct {
	// Annotated is the rewritten document; it equals the input when Edits is
	// empty.
	Annotated []byte
	// Edits are in document order.
	Edits []Edit
	// Pages are the x-pagination values added, in document order.
	Pages []PageEdit
	// Waiters are the x-waiters values added, in document order.
	Waiters []WaiterEdit
	// Lookups are the x-lookup values added, in document order.
	Lookups []LookupEdit
	Notes   []Note
}

// ErrNotOpenAPI reports a document without a paths mapping at its root.
var ErrNotOpenAPI = errors.New("not an OpenAPI document: no paths mapping at the root")

// Options change what Annotate adds.
type Options struct {
	// KeyHeader, when set, keys every POST and PATCH that has neither
	// x-idempotent nor a declared key header with this header
	// (`x-idempotent: {key: {in: header, name: KeyHeader}}`), for APIs that
	// accept an idempotency key everywhere without declaring it (Stripe).
	// It must be a header name ValidKeyHeader accepts.
	KeyHeader string
	// Pagination, when set, returns the x-pagination members to add to the
	// operation (method upper case, path as written) when neither it nor its
	// path item has x-pagination; nil adds none. idemgen passes the
	// contracts the parser inferred (parser.InferPagination).
	Pagination func(method, path string) []Member
	// Waiters, when set, returns the waiters to add as x-waiters to the
	// operation (method upper case, path as written) when it has no
	// x-waiters; nil adds none. idemgen passes the waiters the parser
	// infers (parser.InferWaiters).
	Waiters func(method, path string) []Waiter
	// Lookup, when set, returns the x-lookup to add to the operation
	// (method upper case, path as written) when it has none; nil adds
	// none. idemgen passes the lookups the parser infers
	// (parser.InferLookups).
	Lookup func(method, path string) *Lookup
}

// ValidKeyHeader reports whether name can be written as Options.KeyHeader:
// an HTTP header name (RFC 9110 token) of letters, digits, '-', '_' and '.',
// starting with a letter, that YAML reads as a string when written plain
// (not `true` or `null`).
func ValidKeyHeader(name string) bool {
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')) {
			return false
		}
	}
	var n yaml.Node
	return name != "" && yaml.Unmarshal([]byte(name), &n) == nil && len(n.Content) == 1 && n.Content[0].ShortTag() == "!!str"
}

// Annotate adds the missing x-idempotent extensions to the document in src,
// YAML or JSON (detected from the content). It never panics on malformed
// input; a document it cannot parse is an error.
func Annotate(src []byte) (*Result, error) {
	return Options{}.Annotate(src)
}

// Annotate is the package's Annotate with options.
func (o Options) Annotate(src []byte) (res *Result, err error) {
	defer func() {
		// The YAML parser has panicked on hostile input in the past; a tool
		// run over users' files reports that as an error instead of crashing.
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error while parsing the document: %v", r)
		}
	}()
	idx := newLineIndex(src)
	root, isJSON, err := parse(src, idx)
	if err != nil {
		return nil, err
	}
	paths := root.get("paths")
	if paths == nil || paths.kind != kindMap {
		return nil, ErrNotOpenAPI
	}
	if o.KeyHeader != "" && !ValidKeyHeader(o.KeyHeader) {
		return nil, fmt.Errorf("key header %q is not a header name idemgen can write", o.KeyHeader)
	}
	w := walker{opts: o, root: root, sp: splicer{idx: idx, json: isJSON, compact: isJSON && isCompact(src, root)}}
	w.paths(paths)
	out := w.sp.apply()
	if len(w.edits) > 0 || len(w.pages) > 0 || len(w.waiters) > 0 || len(w.lookups) > 0 {
		if err := verify(root, out, isJSON, w.edits, w.pages, w.waiters, w.lookups); err != nil {
			return nil, err
		}
	}
	return &Result{Annotated: out, Edits: w.edits, Pages: w.pages, Waiters: w.waiters, Lookups: w.lookups, Notes: w.notes}, nil
}

// parse reads src as JSON when it starts like JSON, else as YAML. A YAML
// document written in flow style (`{openapi: 3.0.3, ...}`) starts like JSON
// too, so when the JSON reading fails inside the first value the YAML one
// gets a chance; the JSON error is the one reported when both fail.
func parse(src []byte, idx *lineIndex) (root *node, isJSON bool, err error) {
	if !looksLikeJSON(src) {
		root, err = parseYAML(src, idx)
		return root, false, err
	}
	root, err = parseJSON(src, idx)
	if err == nil || errors.Is(err, errTrailingData) {
		return root, true, err // a whole JSON value was read: this is JSON
	}
	if yroot, yerr := parseYAML(src, idx); yerr == nil {
		return yroot, false, nil
	}
	return nil, true, err
}

// looksLikeJSON reports whether the first significant byte opens a JSON
// object or array (after an optional UTF-8 byte order mark).
func looksLikeJSON(src []byte) bool {
	s := bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	s = bytes.TrimLeft(s, " \t\r\n")
	return len(s) > 0 && (s[0] == '{' || s[0] == '[')
}

// isCompact reports whether the JSON document writes its first member
// without a space after the colon.
func isCompact(src []byte, root *node) bool {
	return len(root.vals) > 0 && root.vals[0].off > 0 && src[root.vals[0].off-1] == ':'
}

// walker visits the operations of a document and records edits and notes.
type walker struct {
	opts  Options
	root  *node
	sp    splicer
	edits []Edit
	pages []PageEdit
	// waiters are the x-waiters added.
	waiters []WaiterEdit
	// lookups are the x-lookup values added.
	lookups []LookupEdit
	notes   []Note
}

func (w *walker) note(n *node, ptr, format string, args ...any) {
	w.notes = append(w.notes, Note{Line: n.line, Column: n.col, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (w *walker) paths(paths *node) {
	for i, k := range paths.keys {
		item, ptr := paths.vals[i], jsonpointer.Join("/paths", k.value)
		switch {
		case item.kind != kindMap:
			continue
		case item.has("$ref"):
			w.note(item, ptr, "path item is a $ref (%s); annotate its target by hand", item.str("$ref"))
		default:
			// A path item's x-idempotent already covers every operation in it.
			w.pathItem(i, k.value, item, ptr, !item.has("x-idempotent"))
		}
	}
}

func (w *walker) pathItem(pathIndex int, path string, item *node, ptr string, idem bool) {
	for i, k := range item.keys {
		method, ok := ir.OperationMethod(k.value)
		if !ok {
			continue
		}
		op, opPtr := item.vals[i], ptr+"/"+k.value
		if op.kind != kindMap {
			continue
		}
		var page []Member
		if w.opts.Pagination != nil && !op.has("x-pagination") && !item.has("x-pagination") {
			page = w.opts.Pagination(method, path)
		}
		var wait []Waiter
		if w.opts.Waiters != nil && !op.has("x-waiters") {
			wait = w.opts.Waiters(method, path)
		}
		var look *Lookup
		if w.opts.Lookup != nil && !op.has("x-lookup") {
			look = w.opts.Lookup(method, path)
		}
		needIdem := idem && !op.has("x-idempotent")
		if !needIdem && page == nil && wait == nil && look == nil {
			continue
		}
		if op.shared {
			w.note(op, opPtr, "operation is a shared YAML anchor or alias; annotate it by hand")
			continue
		}
		if needIdem {
			e := Edit{Method: method, Path: path, Line: op.line, pathIndex: pathIndex, opIndex: i, methodKey: k.value}
			w.operation(e, k, op, item, opPtr)
		}
		if page != nil {
			if err := w.sp.insertPage(k, op)(page); err != nil {
				w.note(op, opPtr, "%v; add its x-pagination by hand", err)
				continue
			}
			w.pages = append(w.pages, PageEdit{Method: method, Path: path, Line: op.line, Members: page,
				pathIndex: pathIndex, opIndex: i, methodKey: k.value})
		}
		if wait != nil {
			w.addWaiters(WaiterEdit{Method: method, Path: path, Line: op.line, Waiters: wait,
				pathIndex: pathIndex, opIndex: i, methodKey: k.value}, k, op, opPtr)
		}
		if look != nil {
			w.addLookup(LookupEdit{Method: method, Path: path, Line: op.line, Lookup: *look,
				pathIndex: pathIndex, opIndex: i, methodKey: k.value}, k, op, opPtr)
		}
	}
}

// addWaiters plans the x-waiters of one operation, or notes why not.
func (w *walker) addWaiters(e WaiterEdit, key, op *node, ptr string) {
	if err := w.sp.insertWaiters(key, op, e.Waiters); err != nil {
		w.note(op, ptr, "%v; add its x-waiters by hand", err)
		return
	}
	w.waiters = append(w.waiters, e)
}

func (w *walker) operation(e Edit, key, op, item *node, ptr string) {
	// The parser's rules decide (ir.IsKeyHeader, then ir.InferredSafety), in
	// the parser's order: a declared key header keys the operation whatever
	// its method, so what annotate writes is what the parser inferred.
	name, foreign := w.keyHeader(op, item)
	unsafe := ir.InferredSafety(e.Method) == ir.Unsafe
	switch {
	case name != "":
		e.Value, e.KeyName = Keyed, name
	case w.opts.KeyHeader != "" && (e.Method == "POST" || e.Method == "PATCH"):
		// The caller says the API takes this key on every call.
		e.Value, e.KeyName = Keyed, w.opts.KeyHeader
	case foreign != "" && unsafe:
		// `false` would be wrong if the key hides behind the reference. A
		// safe method still gets `true`: without the key it stays retryable.
		w.note(op, ptr, "parameter $ref %q cannot be followed inside this file; annotate the operation by hand", foreign)
		return
	case unsafe:
		e.Value = False
	}
	if err := w.sp.insert(key, op, e); err != nil {
		w.note(op, ptr, "%v; annotate the operation by hand", err)
		return
	}
	w.edits = append(w.edits, e)
}

// keyHeader returns the name of the operation's idempotency-key header
// parameter, looking at the operation's parameters and then its path item's.
// When there is none, foreign is the first parameter $ref that leads outside
// the file: the key might hide behind it.
func (w *walker) keyHeader(op, item *node) (name, foreign string) {
	for _, params := range []*node{op.get("parameters"), item.get("parameters")} {
		if params == nil || params.kind != kindSeq {
			continue
		}
		for _, p := range params.items {
			p, ref := w.deref(p)
			if p == nil {
				if foreign == "" {
					foreign = ref
				}
				continue
			}
			if strings.EqualFold(p.str("in"), "header") && ir.IsKeyHeader(p.str("name")) {
				return p.str("name"), ""
			}
		}
	}
	return "", foreign
}

// maxRefHops bounds $ref chains so a reference cycle cannot loop forever.
const maxRefHops = 16

// deref follows local $refs from n. It returns the node reached, or nil and
// the $ref it could not follow (one to another file, or a dangling one).
func (w *walker) deref(n *node) (*node, string) {
	for range maxRefHops {
		ref := n.str("$ref")
		if ref == "" {
			return n, ""
		}
		target := resolvePointer(w.root, ref)
		if target == nil {
			return nil, ref
		}
		n = target
	}
	return nil, n.str("$ref")
}

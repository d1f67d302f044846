package parser

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/ir"
)

// The extension names.
const (
	extIdempotent = "x-idempotent"
	extRetryable  = "x-retryable-status"
)

// idempotency is one parsed x-idempotent value.
type idempotency struct {
	kind    ir.IdempotencyKind // IdempotencyTrue, IdempotencyFalse or IdempotencyKeyed
	keyIn   string
	keyName string
	// ttl is how long the server keeps a key (the object form's ttl), 0
	// when the document does not say.
	ttl time.Duration
	at  loc
}

// statusList is one parsed x-retryable-status value.
type statusList struct {
	set ir.StatusSet
	at  loc
}

// extReader parses extension values straight from the YAML tree, so every
// finding points at the exact item (x-retryable-status/1) with its line and
// column. op names the operation in diagnostics ("" at the root or a path
// item shared by several operations).
type extReader struct {
	sink *diagSink
	op   string
}

// idempotent parses the x-idempotent member of the object at owner. It
// returns nil when the member is absent or invalid (invalid values are
// reported as errors).
func (r extReader) idempotent(owner loc) *idempotency {
	at := owner.at(extIdempotent)
	n := unalias(at.node)
	if n == nil {
		return nil
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		kind := ir.IdempotencyFalse
		if v, _ := strconv.ParseBool(n.Value); v {
			kind = ir.IdempotencyTrue
		}
		return &idempotency{kind: kind, at: at}
	case n.Kind == yaml.MappingNode:
		return r.idempotentKey(at, n)
	}
	r.sink.errorf(at, r.op, ruleIdempotentType,
		"x-idempotent must be true, false or {key: {in: header, name: Idempotency-Key}}, not %s", describe(n))
	return nil
}

// idempotentKey parses the object form {key: {in: header, name: ...}}.
func (r extReader) idempotentKey(at loc, n *yaml.Node) *idempotency {
	ok := r.noUnknownFields(at, n, "key", "ttl")
	ttl, ttlOK := r.keyTTL(at.at("ttl"))
	ok = ttlOK && ok
	keyAt := at.at("key")
	key := unalias(keyAt.node)
	switch {
	case key == nil:
		r.sink.errorf(at, r.op, ruleIdempotentKey, "x-idempotent object needs key: {in: header, name: <header name>}")
		return nil
	case key.Kind != yaml.MappingNode:
		r.sink.errorf(keyAt, r.op, ruleIdempotentKey, "x-idempotent key must be an object {in: header, name: <header name>}, not %s", describe(key))
		return nil
	}
	ok = r.noUnknownFields(keyAt, key, "in", "name") && ok
	in := "header"
	if inAt := keyAt.at("in"); inAt.node != nil {
		in = scalarString(inAt.node)
		if in != "header" {
			r.sink.errorf(inAt, r.op, ruleIdempotentKey, "idempotency key must travel in a header (in: header), not %s", describe(unalias(inAt.node)))
			ok = false
		}
	}
	nameAt := keyAt.at("name")
	name := scalarString(nameAt.node)
	switch {
	case nameAt.node == nil:
		r.sink.errorf(keyAt, r.op, ruleIdempotentKey, "idempotency key needs a header name (name: Idempotency-Key)")
		return nil
	case !checkToken(r.sink, nameAt, r.op, ruleIdempotentKey, "idempotency key name", name):
		return nil
	}
	if !ok {
		return nil
	}
	return &idempotency{kind: ir.IdempotencyKeyed, keyIn: in, keyName: name, ttl: ttl, at: at}
}

// keyTTL parses the object form's ttl: a positive Go duration ("24h",
// "90m"), or a whole number of days ("7d"). Absent is 0, no declaration.
func (r extReader) keyTTL(at loc) (time.Duration, bool) {
	if at.node == nil {
		return 0, true
	}
	s := scalarString(at.node)
	d, err := time.ParseDuration(s)
	if days, found := strings.CutSuffix(s, "d"); found {
		n, nerr := strconv.Atoi(days)
		d, err = time.Duration(n)*24*time.Hour, nerr
		if n > 100*365 {
			err = fmt.Errorf("too long")
		}
	}
	if err != nil || d <= 0 {
		r.sink.errorf(at, r.op, ruleIdempotentKey, "x-idempotent ttl must be a positive duration (24h, 90m, 7d), not %s", describe(unalias(at.node)))
		return 0, false
	}
	return d, true
}

// noUnknownFields reports members of an extension object other than the
// allowed ones (x- members are always allowed) and says whether there were
// none: a misspelt field would otherwise be silently ignored.
func (r extReader) noUnknownFields(at loc, n *yaml.Node, allowed ...string) bool {
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if strings.HasPrefix(k, "x-") || contains(allowed, k) {
			continue
		}
		r.sink.errorf(at.at(k), r.op, ruleIdempotentKey, "unknown field %q (allowed: %s)", k, strings.Join(allowed, ", "))
		ok = false
	}
	return ok
}

// retryable parses the x-retryable-status member of the object at owner.
// Invalid items are reported and left out; nil means absent or not a list.
func (r extReader) retryable(owner loc) *statusList {
	at := owner.at(extRetryable)
	n := unalias(at.node)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.sink.errorf(at, r.op, ruleRetryableType,
			"x-retryable-status must be a list of status codes (100-599) and classes such as \"5XX\", not %s", describe(n))
		return nil
	}
	codes, classes := map[int]bool{}, map[int]bool{}
	for i := range n.Content {
		itemAt := at.at(strconv.Itoa(i))
		code, class, ok := r.statusItem(itemAt)
		if !ok {
			continue
		}
		seen := codes
		v := code
		if class > 0 {
			seen, v = classes, class
		}
		if seen[v] {
			r.sink.warnf(itemAt, r.op, ruleRetryableDuplicate, "%s is listed twice", unalias(itemAt.node).Value)
		}
		seen[v] = true
	}
	return &statusList{set: ir.StatusSet{Codes: sortedKeys(codes), Classes: sortedKeys(classes)}, at: at}
}

// statusItem parses and checks one list item: an integer code or a class
// string ("5XX", also "5xx"); a quoted code ("503") is read as the code.
func (r extReader) statusItem(at loc) (code, class int, ok bool) {
	n := unalias(at.node)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && len(n.Value) == 3 && strings.EqualFold(n.Value[1:], "XX") {
		class = int(n.Value[0] - '0')
		if class < 1 || class > 5 {
			r.sink.errorf(at, r.op, ruleRetryableRange, "status class %q is outside 1XX-5XX", n.Value)
			return 0, 0, false
		}
		return 0, class, r.checkClass(at, class)
	}
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!str") {
		r.sink.errorf(at, r.op, ruleRetryableType, "%s is not a status code or class such as \"5XX\"", describe(n))
		return 0, 0, false
	}
	code, err := strconv.Atoi(n.Value)
	if err != nil {
		r.sink.errorf(at, r.op, ruleRetryableType, "%s is not a status code or class such as \"5XX\"", describe(n))
		return 0, 0, false
	}
	if code < 100 || code > 599 {
		r.sink.errorf(at, r.op, ruleRetryableRange, "%d is not an HTTP status (100-599)", code)
		return 0, 0, false
	}
	return code, 0, r.checkCode(at, code)
}

// neverRetried are the statuses the runtime never retries whatever a document
// says: retrying an authentication failure with the same credentials, or a
// failed precondition with the same precondition, cannot succeed.
var neverRetried = map[int]string{
	401: "an authentication failure", 403: "an authorisation failure",
	407: "a proxy authentication failure", 412: "a failed precondition; re-read and merge instead",
}

// rarelyTransient are client errors that a retry usually repeats.
var rarelyTransient = map[int]bool{400: true, 404: true, 409: true, 422: true}

func (r extReader) checkCode(at loc, code int) bool {
	switch {
	case neverRetried[code] != "":
		r.sink.errorf(at, r.op, ruleRetryableNever, "%d is never retried (%s); remove it", code, neverRetried[code])
		return false
	case code >= 200 && code < 400:
		r.sink.errorf(at, r.op, ruleRetryableSuccess, "%d is not a failure; only failures are retried, remove it", code)
		return false
	case rarelyTransient[code]:
		r.sink.warnf(at, r.op, ruleRetryableClientErr, "%d is rarely transient: retrying usually repeats the same answer", code)
	}
	return true
}

func (r extReader) checkClass(at loc, class int) bool {
	switch class {
	case 2, 3:
		r.sink.errorf(at, r.op, ruleRetryableSuccess, "%dXX is not a failure; only failures are retried, remove it", class)
		return false
	case 4:
		r.sink.errorf(at, r.op, ruleRetryableNever, "4XX includes 401, 403, 407 and 412, which are never retried; list the 4xx codes to retry instead")
		return false
	}
	return true
}

// describe names a YAML value's type for messages: `string "yes"`, `an object`.
func describe(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "boolean " + n.Value
	case "!!int":
		return "integer " + n.Value
	case "!!float":
		return "number " + n.Value
	}
	return fmt.Sprintf("string %q", n.Value)
}

func scalarString(n *yaml.Node) string {
	n = unalias(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// isToken reports whether s is an HTTP token (RFC 9110 section 5.6.2), the
// syntax of a header name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// checkToken is the one check of every header and cookie name the parser
// reads (parameters, response headers, apiKey schemes, the idempotency
// key): a name that is not an HTTP token is an error of rule located at
// the name. net/http refuses to send such a header, so every call would
// fail unsent; and a CR/LF in one would smuggle a second header to a
// transport that did not check.
func checkToken(sink *diagSink, at loc, op, rule, what, name string) bool {
	d, ok := tokenProblem(sink, at, op, rule, what, name)
	if !ok {
		sink.list = append(sink.list, d)
	}
	return ok
}

// tokenProblem is checkToken's finding without reporting it: the caller
// stores it on the element it makes unusable (ir.Operation.Unsupported,
// ir.SecurityScheme.Unsupported), so that the generator refuses the
// document or, under SkipUnsupported, skips only what the name touches.
func tokenProblem(sink *diagSink, at loc, op, rule, what, name string) (ir.Diagnostic, bool) {
	if isToken(name) {
		return ir.Diagnostic{}, true
	}
	return sink.make(ir.SeverityError, at, op, rule, fmt.Sprintf("%s %q is not an HTTP token (RFC 9110: one or more ASCII letters, digits or !#$%%&'*+-.^_`|~); no request could carry it", what, name)), false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[int]bool) []int {
	if len(m) == 0 {
		return nil
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

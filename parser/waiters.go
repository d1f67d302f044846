package parser

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

const extWaiters = "x-waiters"

// The x-waiters rules (docs/extensions.md).
const (
	ruleWaiterType      = "waiter-type"
	ruleWaiterMember    = "waiter-member"
	ruleWaiterUnsafe    = "waiter-unsafe"
	ruleWaiterName      = "waiter-name"
	ruleWaiterField     = "waiter-field"
	ruleWaiterValue     = "waiter-value"
	ruleWaiterDuration  = "waiter-duration"
	ruleWaiterPending   = "waiter-pending-status"
	ruleWaiterDuplicate = "waiter-duplicate"
)

// waiterMembers are the members a waiter takes besides x- members.
var waiterMembers = []string{"name", "until", "failOn", "pendingStatus", "delay", "maxDelay", "timeout"}

// waiterName is what a waiter's name must look like: it becomes the Go
// method Wait<Name>.
var waiterName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// waiters reads the operation's x-waiters: a list of waiters, each checked
// against the operation's safety and its JSON success response. A waiter
// with an error is left out.
func (b *builder) waiters(r *rawOp, op *ir.Operation) []*ir.Waiter {
	at := r.at.at(extWaiters)
	if at.node == nil {
		return nil
	}
	wr := waiterReader{sink: b.l.sink, op: op}
	n := unalias(at.node)
	if n.Kind != yaml.SequenceNode {
		wr.errorf(at, ruleWaiterType, "x-waiters must be a list of waiters [{name, until: {field, in}, ...}], not %s", describe(n))
		return nil
	}
	if !wr.safe(at) {
		return nil
	}
	wr.body = successSchema(op)
	if wr.body == nil {
		wr.errorf(at, ruleWaiterField, "the operation has no JSON success response for a waiter to read")
		return nil
	}
	var out []*ir.Waiter
	for i := range n.Content {
		if w := wr.waiter(at.at(strconv.Itoa(i))); w != nil {
			out = append(out, w)
		}
	}
	return out
}

type waiterReader struct {
	sink *diagSink
	op   *ir.Operation
	body *ir.Schema
}

func (r waiterReader) errorf(at loc, rule, format string, args ...any) {
	r.sink.errorf(at, r.op.ID, rule, format, args...)
}

// safe refuses x-waiters on an operation that cannot be polled: an unsafe
// one, and a keyed one (every poll would be a new intent with a new key,
// or the same key's stored first answer forever).
func (r waiterReader) safe(at loc) bool {
	switch r.op.Retry.Safety {
	case ir.Idempotent:
		return true
	case ir.Keyed:
		r.errorf(at, ruleWaiterUnsafe, "x-waiters needs an idempotent operation (a GET): %s is keyed, and every poll would either be a new intent or replay its key's first answer", r.op.ID)
	default:
		r.errorf(at, ruleWaiterUnsafe, "x-waiters needs an idempotent operation (a GET): %s is unsafe, and a waiter sends it again and again", r.op.ID)
	}
	return false
}

// waiter reads one waiter; nil when it has an error (reported).
func (r waiterReader) waiter(at loc) *ir.Waiter {
	n := unalias(at.node)
	if n.Kind != yaml.MappingNode {
		r.errorf(at, ruleWaiterType, "a waiter must be an object {name, until: {field, in}, ...}, not %s", describe(n))
		return nil
	}
	ok := r.members(at, n)
	w := &ir.Waiter{Source: r.sink.source(at)}
	w.Name = r.name(at)
	ok = w.Name != "" && ok
	w.GoName = GoName(w.Name)
	until, untilOK := r.match(at, "until", true)
	failOn, failOK := r.match(at, "failOn", false)
	ok = untilOK && failOK && r.overlap(at, until, failOn) && ok
	ok = r.durations(at, w) && r.pending(at, w) && ok
	if !ok {
		return nil
	}
	w.Until, w.FailOn = *until, failOn
	return w
}

// members refuses a member a waiter does not take.
func (r waiterReader) members(at loc, n *yaml.Node) bool {
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !strings.HasPrefix(k, "x-") && !contains(waiterMembers, k) {
			r.errorf(at.at(k), ruleWaiterMember, "%q is not a member of a waiter (allowed: %s)", k, strings.Join(waiterMembers, ", "))
			ok = false
		}
	}
	return ok
}

// name reads the waiter's name; "" when it is missing or unusable.
func (r waiterReader) name(at loc) string {
	nameAt := at.at("name")
	v := unalias(nameAt.node)
	switch {
	case v == nil:
		r.errorf(at, ruleWaiterName, "a waiter needs a name (it becomes the client's Wait<Name> method)")
	case v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || !waiterName.MatchString(v.Value):
		r.errorf(nameAt, ruleWaiterName, "a waiter's name must be letters, digits and _ starting with a letter, not %s", describe(v))
	default:
		return v.Value
	}
	return ""
}

// durations reads delay, maxDelay and timeout: a Go duration ("2s",
// "1m30s") or a number of seconds, above zero; delay not above maxDelay.
func (r waiterReader) durations(at loc, w *ir.Waiter) bool {
	ok := true
	for _, m := range []struct {
		name string
		dst  *time.Duration
	}{{"delay", &w.Delay}, {"maxDelay", &w.MaxDelay}, {"timeout", &w.Timeout}} {
		v := unalias(at.at(m.name).node)
		if v == nil {
			continue
		}
		d, good := parseWaitDuration(v)
		if !good {
			d = 0
			r.errorf(at.at(m.name), ruleWaiterDuration, "%s must be a duration above zero (\"2s\", \"10m\", or a number of seconds), not %s", m.name, describe(v))
			ok = false
		}
		*m.dst = d
	}
	if w.Delay > 0 && w.MaxDelay > 0 && w.Delay > w.MaxDelay {
		r.errorf(at.at("delay"), ruleWaiterDuration, "delay %v is above maxDelay %v", w.Delay, w.MaxDelay)
		ok = false
	}
	return ok
}

// parseWaitDuration reads a duration scalar: a Go duration string or a
// number of seconds.
func parseWaitDuration(v *yaml.Node) (time.Duration, bool) {
	if v.Kind != yaml.ScalarNode {
		return 0, false
	}
	var d time.Duration
	var err error
	switch v.ShortTag() {
	case "!!str":
		d, err = time.ParseDuration(v.Value)
	case "!!int", "!!float":
		var f float64
		f, err = strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
		if f > float64(1<<62)/float64(time.Second) {
			return 0, false
		}
		d = time.Duration(f * float64(time.Second))
	default:
		return 0, false
	}
	return d, err == nil && d > 0
}

// pending reads pendingStatus: 4xx and 5xx codes, not 401, 403, 407 or
// 412 (the answers that say the call itself is wrong).
func (r waiterReader) pending(at loc, w *ir.Waiter) bool {
	pat := at.at("pendingStatus")
	v := unalias(pat.node)
	if v == nil {
		return true
	}
	if v.Kind != yaml.SequenceNode {
		r.errorf(pat, ruleWaiterPending, "pendingStatus must be a list of status codes, not %s", describe(v))
		return false
	}
	ok := true
	for i, c := range v.Content {
		code, err := strconv.Atoi(scalarString(c))
		switch {
		case unalias(c).ShortTag() != "!!int" || err != nil || code < 400 || code > 599:
			r.errorf(pat.at(strconv.Itoa(i)), ruleWaiterPending, "pendingStatus %s is not a 4xx or 5xx status code", describe(unalias(c)))
			ok = false
		case neverRetried[code] != "":
			r.errorf(pat.at(strconv.Itoa(i)), ruleWaiterPending, "pendingStatus %d is %s, not a resource that is not there yet; remove it", code, neverRetried[code])
			ok = false
		default:
			w.PendingStatus = append(w.PendingStatus, code)
		}
	}
	return ok
}

// fieldPointer turns a field into a JSON pointer: a pointer stays as it
// is, a bare name is the pointer to that top-level member.
func fieldPointer(field string) string {
	if strings.HasPrefix(field, "/") {
		return field
	}
	return "/" + jsonpointer.Escape(field)
}

// describeField names a field for messages: its pointer, and the field as
// written when that differs.
func describeField(field, ptr string) string {
	if field == ptr {
		return strconv.Quote(ptr)
	}
	return fmt.Sprintf("%q (%s)", field, ptr)
}

// checkWaiterNames reports a waiter name used twice in the document: the
// client would have two Wait<Name> methods. Every use after the first is
// an error, located at its waiter.
func checkWaiterNames(sink *diagSink, ops []*ir.Operation) {
	first := map[string]*ir.Waiter{}
	for _, op := range ops {
		for _, w := range op.Waiters {
			prev := first[w.GoName]
			if prev == nil {
				first[w.GoName] = w
				continue
			}
			src := w.Source
			sink.list = append(sink.list, ir.Diagnostic{Severity: ir.SeverityError, Rule: ruleWaiterDuplicate,
				File: src.File, Line: src.Line, Column: src.Column, Pointer: src.Pointer, Operation: op.ID,
				Message: fmt.Sprintf("waiter %q has the name of the waiter at line %d (Wait%s); rename one", w.Name, prev.Source.Line, w.GoName)})
		}
	}
}

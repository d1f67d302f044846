package parser

import (
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// The status values InferWaiters reads as an end state, by meaning.
var (
	successStates = []string{"succeeded", "success", "successful", "completed", "complete", "done", "ready",
		"active", "available", "finished", "paid", "settled", "approved"}
	failureStates = []string{"failed", "failure", "error", "errored", "canceled", "cancelled", "rejected",
		"expired", "declined", "aborted"}
)

// statusFields are the members InferWaiters looks for, in order.
var statusFields = []string{"status", "state"}

// InferWaiters proposes a waiter for each GET of a resource that a POST
// creates: a GET on <collection>/{id} without x-waiters, idempotent, whose
// JSON result is the same named schema as the one a POST on <collection>
// answers, with a top-level status (or state) string enum holding at
// least one success state (succeeded, completed, ready, active...). The
// waiter, named after the schema and the first success state
// (PaymentSucceeded), waits until the field is one of the success states,
// and fails on its failure states (failed, canceled, expired...), if any.
// The result is keyed by "GET <path>"; idemgen annotate writes it.
func InferWaiters(api *ir.API) map[string][]*ir.Waiter {
	created := map[string]*ir.Schema{}
	taken := map[string]bool{}
	for _, op := range api.Operations {
		if s := successSchema(op).Deref(); op.Method == "POST" && s != nil {
			created[op.Path+" "+s.Name] = s
		}
		for _, w := range op.Waiters {
			taken[w.GoName] = true
		}
	}
	out := map[string][]*ir.Waiter{}
	for _, op := range api.Operations {
		w := inferWaiter(op, created)
		if w == nil || taken[w.GoName] {
			continue
		}
		taken[w.GoName] = true
		out[op.Method+" "+op.Path] = []*ir.Waiter{w}
	}
	return out
}

// inferWaiter is the waiter InferWaiters proposes for op, or nil.
func inferWaiter(op *ir.Operation, created map[string]*ir.Schema) *ir.Waiter {
	i := strings.LastIndexByte(op.Path, '/')
	if op.Method != "GET" || op.Retry.Safety != ir.Idempotent || len(op.Waiters) > 0 || op.Query != "" ||
		i <= 0 || !strings.HasPrefix(op.Path[i:], "/{") || !strings.HasSuffix(op.Path, "}") {
		return nil
	}
	s := successSchema(op).Deref()
	if s == nil || s.Name == "" || created[op.Path[:i]+" "+s.Name] != s {
		return nil
	}
	for _, f := range statusFields {
		p := property(s, f)
		if p == nil || p.Type.Deref() == nil || p.Type.Deref().Kind != ir.KindEnum || p.Type.Deref().EnumBase != ir.KindString {
			continue
		}
		until, failOn := endStates(p.Type.Deref())
		if len(until) == 0 {
			return nil
		}
		w := &ir.Waiter{Name: GoName(s.GoName) + GoName(until[0]), Until: ir.WaitMatch{Pointer: "/" + f, In: until}}
		w.GoName = w.Name
		if len(failOn) > 0 {
			w.FailOn = &ir.WaitMatch{Pointer: "/" + f, In: failOn}
		}
		return w
	}
	return nil
}

// endStates splits an enum's values into success and failure states, in
// the enum's order.
func endStates(s *ir.Schema) (success, failure []string) {
	for _, v := range s.Enum {
		switch low := strings.ToLower(v.Value); {
		case contains(successStates, low):
			success = append(success, v.Value)
		case contains(failureStates, low):
			failure = append(failure, v.Value)
		}
	}
	return success, failure
}

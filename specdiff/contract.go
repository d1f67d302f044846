package specdiff

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// contract compares the retry contracts of one operation.
func (d *differ) contract(was, op *ir.Operation) {
	d.safety(was, op)
	d.retryable(was, op)
}

// safetySource is where an operation's safety was decided, or the operation
// when nothing in the document decided it (the method's default).
func safetySource(op *ir.Operation) ir.Source {
	if op.Retry.IdempotencySource.File != "" {
		return op.Retry.IdempotencySource
	}
	return op.Source
}

// safety reports a change of safety class or of the key's header.
func (d *differ) safety(was, op *ir.Operation) {
	o, n := was.Retry, op.Retry
	c := Change{Area: AreaContract, Operation: op.ID, At: safetySource(op), Was: safetySource(was)}
	c.Pointer = c.At.Pointer
	name := op.GoName
	switch {
	case o.Safety == n.Safety && (n.Safety != ir.Keyed || strings.EqualFold(o.KeyName, n.KeyName)):
		return
	case o.Safety == ir.Keyed && n.Safety == ir.Keyed:
		c.Rule, c.Breaking = "key-moved", true
		c.Message = fmt.Sprintf("%s's idempotency key moved from the %s header to %s: the old client sends its key where the server no longer reads it, so a retry after an unknown outcome can run twice",
			name, o.KeyName, n.KeyName)
	case o.Safety == ir.Keyed && n.Safety == ir.Unsafe:
		c.Rule, c.Breaking = "key-removed", true
		c.Message = fmt.Sprintf("%s is no longer keyed (was keyed by %s, now unsafe): the old client still resends it after an unknown outcome, and the server no longer deduplicates, so it can run twice",
			name, o.KeyName)
	case o.Safety == ir.Idempotent && n.Safety == ir.Unsafe:
		c.Rule, c.Breaking = "became-unsafe", true
		c.Message = fmt.Sprintf("%s is no longer idempotent (now unsafe): the old client resends it after an unknown outcome, so it can run twice", name)
	case n.Safety == ir.Keyed:
		c.Rule, c.Breaking = "key-added", true
		c.Message = fmt.Sprintf("%s is keyed now (by %s, was %s): the old client sends no key, and a generated server refuses a keyed call without one (400 idempotency-key-missing)",
			name, n.KeyName, o.Safety)
	case o.Safety == ir.Keyed:
		c.Rule = "key-dropped"
		c.Message = fmt.Sprintf("%s is idempotent now and no longer keyed by %s: the old client's key is ignored, and its retries stay safe", name, o.KeyName)
	default:
		c.Rule = "became-idempotent"
		c.Message = fmt.Sprintf("%s is idempotent now (was unsafe): the old client never resends it after an unknown outcome, which stays correct", name)
	}
	d.add(c)
}

// retrySet is what a client does on each status: the statuses it resends
// on. An unsafe operation is resent on 429 only whatever its list says
// (DESIGN.md section 4), so a list change on one changes 429 at most.
func retrySet(op *ir.Operation, safety ir.Safety) func(int) bool {
	set := op.Retry.Retryable
	return func(status int) bool {
		if safety == ir.Unsafe && status != 429 {
			return false
		}
		return set.Contains(status)
	}
}

// retryable reports statuses the old client treats differently from what
// NEW's x-retryable-status says. Both sides are read with OLD's safety, so
// that a safety change (reported on its own) does not also show as every
// status changing.
func (d *differ) retryable(was, op *ir.Operation) {
	before, after := retrySet(was, was.Retry.Safety), retrySet(op, was.Retry.Safety)
	var added, removed []int
	for s := 100; s < 600; s++ {
		switch b, a := before(s), after(s); {
		case a && !b:
			added = append(added, s)
		case b && !a:
			removed = append(removed, s)
		}
	}
	at, prev := retryableSource(op), retryableSource(was)
	if len(added) > 0 {
		d.add(Change{Rule: "retryable-added", Area: AreaContract, Breaking: true, Operation: op.ID, Pointer: at.Pointer, At: at, Was: prev,
			Message: fmt.Sprintf("%s is retryable on %s now: the old client treats %s as final and returns the error instead of retrying",
				op.GoName, statusList(added), them(added))})
	}
	if len(removed) > 0 {
		d.add(Change{Rule: "retryable-removed", Area: AreaContract, Breaking: true, Operation: op.ID, Pointer: at.Pointer, At: at, Was: prev,
			Message: fmt.Sprintf("%s is no longer retryable on %s: the old client still resends on %s", op.GoName, statusList(removed), them(removed))})
	}
}

func them(codes []int) string {
	if len(codes) == 1 {
		return "it"
	}
	return "them"
}

// retryableSource is where an operation's retryable statuses were set, or
// the operation when the default applies.
func retryableSource(op *ir.Operation) ir.Source {
	if op.Retry.RetryableLevel != ir.LevelDefault && op.Retry.RetryableSource.File != "" {
		return op.Retry.RetryableSource
	}
	return op.Source
}

// statusList writes sorted statuses compactly: a whole class as "5XX", a
// run of three or more as "500-505".
func statusList(codes []int) string {
	var parts []string
	for i := 0; i < len(codes); {
		c := codes[i]
		if c%100 == 0 && i+99 < len(codes) && codes[i+99] == c+99 {
			parts = append(parts, fmt.Sprintf("%dXX", c/100))
			i += 100
			continue
		}
		j := i
		for j+1 < len(codes) && codes[j+1] == codes[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d-%d", c, codes[j]))
		case j > i:
			parts = append(parts, fmt.Sprint(c), fmt.Sprint(codes[j]))
		default:
			parts = append(parts, fmt.Sprint(c))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

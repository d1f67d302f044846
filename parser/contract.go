package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// keyish reports whether a header name looks like an idempotency key
// ("Idempotency-Key", "X-Idempotency-Token", "idempotent-id").
func keyish(name string) bool {
	return strings.Contains(strings.ToLower(name), "idempot")
}

// headerParam is what the contract needs to know of a declared parameter.
type headerParam struct {
	name     string
	required bool
	at       loc
}

// levels are the extension values found at each level for one operation.
type levels struct {
	rootRetry, pathRetry, opRetry *statusList
	pathIdem, opIdem              *idempotency
	// annotated is set when x-idempotent is written at either level, even
	// with an invalid value (already an error; no lint warning on top).
	annotated bool
}

// resolveContract applies the precedence rules of docs/extensions.md: the
// nearest x-idempotent (operation, then path item) decides; without one a
// declared key header makes the operation keyed, else the method decides.
// The nearest x-retryable-status (operation, path item, root) wins over the
// default.
func resolveContract(s *diagSink, method string, lv levels, headers []headerParam) ir.RetryContract {
	var c ir.RetryContract
	switch idem, level := nearestIdem(lv); {
	case idem != nil:
		c.Kind, c.IdempotencyLevel, c.IdempotencySource = idem.kind, level, s.source(idem.at)
		c.Safety = map[ir.IdempotencyKind]ir.Safety{
			ir.IdempotencyTrue: ir.Idempotent, ir.IdempotencyFalse: ir.Unsafe, ir.IdempotencyKeyed: ir.Keyed,
		}[idem.kind]
		c.KeyIn, c.KeyName, c.KeyTTL = idem.keyIn, idem.keyName, idem.ttl
	default:
		c.Safety = ir.InferredSafety(method)
		for _, h := range headers {
			if ir.IsKeyHeader(h.name) {
				c.Safety, c.Kind, c.KeyIn, c.KeyName = ir.Keyed, ir.IdempotencyKeyed, "header", h.name
				c.IdempotencyLevel, c.IdempotencySource = ir.LevelParameter, s.source(h.at)
				break
			}
		}
	}
	c.Retryable, c.RetryableLevel = ir.DefaultRetryable(), ir.LevelDefault
	for _, l := range []struct {
		list  *statusList
		level ir.Level
	}{{lv.opRetry, ir.LevelOperation}, {lv.pathRetry, ir.LevelPathItem}, {lv.rootRetry, ir.LevelRoot}} {
		if l.list != nil {
			c.Retryable, c.RetryableLevel, c.RetryableSource = l.list.set, l.level, s.source(l.list.at)
			break
		}
	}
	return c
}

func nearestIdem(lv levels) (*idempotency, ir.Level) {
	if lv.opIdem != nil {
		return lv.opIdem, ir.LevelOperation
	}
	if lv.pathIdem != nil {
		return lv.pathIdem, ir.LevelPathItem
	}
	return nil, ir.LevelDefault
}

// lintContract reports the suspicious but valid contracts.
func lintContract(s *diagSink, op string, at loc, method string, lv levels, c ir.RetryContract, headers []headerParam) {
	method = strings.ToUpper(method)
	switch {
	case c.Kind == ir.IdempotencyInferred && c.Safety == ir.Unsafe && !lv.annotated:
		s.warnf(at, op, ruleUnannotatedUnsafe,
			"%s without x-idempotent: an unknown outcome is never retried; annotate it (true, false, or a key)", method)
	case c.Kind == ir.IdempotencyTrue && method == "POST":
		s.warnf(at, op, ruleTrueWithoutKey,
			"x-idempotent: true on a POST without a key is suspicious; declare a key ({key: {in: header, name: Idempotency-Key}}) unless repeats are harmless")
	}
	for _, h := range headers {
		switch {
		case c.Kind == ir.IdempotencyKeyed && c.IdempotencyLevel != ir.LevelParameter &&
			(ir.IsKeyHeader(h.name) || (h.required && keyish(h.name))) && !strings.EqualFold(h.name, c.KeyName):
			s.warnf(h.at, op, ruleKeyParamMismatch,
				"header %q looks like an idempotency key, but x-idempotent names %q; the client sends the key only as %s",
				h.name, c.KeyName, c.KeyName)
		case (c.Kind == ir.IdempotencyTrue || c.Kind == ir.IdempotencyFalse) && ir.IsKeyHeader(h.name):
			s.warnf(h.at, op, ruleKeyParamIgnored,
				"header %q declares an idempotency key, but x-idempotent: %s overrides it; it is sent as an ordinary header",
				h.name, c.Kind)
		}
	}
}

// contractSummary states a resolved contract in the one sentence the
// generated method's doc comment opens with, so the generator prints a
// decision instead of restating the runtime's rules:
//
//	CreateOrder is keyed: every attempt sends one Idempotency-Key; retried on 408, 429, 502, 503, 504 and on unknown outcomes.
func contractSummary(goName string, c ir.RetryContract) string {
	switch c.Safety {
	case ir.Keyed:
		return fmt.Sprintf("%s is keyed: every attempt sends one %s; retried on %s.", goName, c.KeyName, retriedOn(c.Retryable))
	case ir.Idempotent:
		return fmt.Sprintf("%s is idempotent: retried on %s.", goName, retriedOn(c.Retryable))
	}
	// DESIGN.md section 4: an unsafe operation retries only failures that
	// prove the request never arrived, and of its statuses only 429.
	s := fmt.Sprintf("%s is not idempotent: never resent once the request may have reached the server; retried only when it was not sent", goName)
	if c.Retryable.Contains(429) {
		s += " or on 429"
	}
	return s + "."
}

// retriedOn phrases the retry conditions of a safe operation: "408, 429, 5xx
// and on unknown outcomes".
func retriedOn(set ir.StatusSet) string {
	var statuses []string
	for _, c := range set.Codes {
		statuses = append(statuses, strconv.Itoa(c))
	}
	for _, c := range set.Classes {
		statuses = append(statuses, strconv.Itoa(c)+"xx")
	}
	if len(statuses) == 0 {
		return "unknown outcomes only"
	}
	return strings.Join(statuses, ", ") + " and on unknown outcomes"
}

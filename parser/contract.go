package parser

import (
	"strings"

	"github.com/idemgen/idemgen/ir"
)

// IsKeyHeader reports whether a header parameter of this name declares an
// idempotency key: "Idempotency-Key", in any case (DESIGN.md section 3). An
// operation that declares one and has no x-idempotent is keyed by it;
// `idemgen annotate` must use the same test, or it would annotate such an
// operation `x-idempotent: false`.
func IsKeyHeader(name string) bool {
	return strings.EqualFold(name, "Idempotency-Key")
}

// keyish reports whether a header name looks like an idempotency key
// ("Idempotency-Key", "X-Idempotency-Token", "idempotent-id").
func keyish(name string) bool {
	return strings.Contains(strings.ToLower(name), "idempot")
}

// InferredSafety returns what RFC 9110 says about a method: GET, HEAD,
// OPTIONS, TRACE, PUT and DELETE are idempotent; POST, PATCH and anything
// else are not.
func InferredSafety(method string) ir.Safety {
	switch strings.ToUpper(method) {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "QUERY":
		return ir.Idempotent
	}
	return ir.Unsafe
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
		c.KeyIn, c.KeyName = idem.keyIn, idem.keyName
	default:
		c.Safety = InferredSafety(method)
		for _, h := range headers {
			if IsKeyHeader(h.name) {
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
			(IsKeyHeader(h.name) || (h.required && keyish(h.name))) && !strings.EqualFold(h.name, c.KeyName):
			s.warnf(h.at, op, ruleKeyParamMismatch,
				"header %q looks like an idempotency key, but x-idempotent names %q; the client sends the key only as %s",
				h.name, c.KeyName, c.KeyName)
		case (c.Kind == ir.IdempotencyTrue || c.Kind == ir.IdempotencyFalse) && IsKeyHeader(h.name):
			s.warnf(h.at, op, ruleKeyParamIgnored,
				"header %q declares an idempotency key, but x-idempotent: %s overrides it; it is sent as an ordinary header",
				h.name, c.Kind)
		}
	}
}

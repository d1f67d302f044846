package parser

import (
	"fmt"
	"sort"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
	"github.com/idemgen/idemgen/ir"
)

// Rule identifiers of every diagnostic the parser reports. docs/extensions.md
// and docs/parser.md list them with their meaning; they are part of the
// command-line contract (`lint --format json` prints them), so never rename one.
const (
	ruleLoad               = "load"
	ruleRemoteRef          = "remote-ref"
	ruleRefOutside         = "ref-outside"
	ruleDanglingRef        = "dangling-ref"
	ruleRefCycle           = "ref-cycle"
	ruleRefKind            = "ref-kind"
	ruleSchemaShape        = "schema-shape"
	ruleShape              = "shape"
	rulePathQuery          = "path-query"
	ruleOperationIdentity  = "operation-identity"
	ruleWebhook            = "webhook"
	ruleAllOfConflict      = "allof-conflict"
	ruleUnsupportedSchema  = "unsupported-schema"
	ruleDuplicateParam     = "duplicate-parameter"
	rulePathParam          = "path-parameter"
	ruleUnsupportedParam   = "unsupported-parameter"
	ruleBadResponse        = "response-status"
	ruleUnknownScheme      = "unknown-security-scheme"
	ruleHeaderName         = "header-name"
	ruleDuplicateKey       = "duplicate-key"
	ruleIdempotentType     = "idempotent-type"
	ruleIdempotentKey      = "idempotent-key"
	ruleIdempotentPlace    = "idempotent-placement"
	ruleRetryableType      = "retryable-status-type"
	ruleRetryableRange     = "retryable-status-range"
	ruleRetryableNever     = "retryable-status-never"
	ruleRetryableSuccess   = "retryable-status-success"
	ruleRetryableClientErr = "retryable-status-client-error"
	ruleRetryableDuplicate = "retryable-status-duplicate"
	ruleUnannotatedUnsafe  = "unannotated-unsafe"
	ruleTrueWithoutKey     = "idempotent-true-without-key"
	ruleKeyParamMismatch   = "key-parameter-mismatch"
	ruleKeyParamIgnored    = "key-parameter-ignored"
	rulePaginationType     = "pagination-type"
	rulePaginationKind     = "pagination-kind"
	rulePaginationMember   = "pagination-member"
	rulePaginationParam    = "pagination-param"
	rulePaginationItems    = "pagination-items"
	rulePaginationField    = "pagination-field"
	rulePaginationPlace    = "pagination-placement"
	rulePaginationInferred = "pagination-inferred"
	ruleNumberedName       = "numbered-name"
	// The overlay rules are internal/overlay's RuleTarget and RuleAction.
	ruleOverlay       = "overlay"
	ruleOverlayTarget = "overlay-target"
	ruleOverlayAction = "overlay-action"
)

// loc is a place in the document set: a file key, a JSON pointer in it, and
// the tree node there when the tree has one (nil for places that exist only
// in kin-openapi's model, such as the request body a Swagger 2.0 body
// parameter was converted into).
type loc struct {
	file    string
	pointer string
	node    *yaml.Node
}

// at returns the location of a descendant, walking the tree node along.
func (l loc) at(toks ...string) loc {
	n := l.node
	for _, t := range toks {
		n = child(unalias(n), t)
	}
	return loc{l.file, jsonpointer.Join(l.pointer, toks...), n}
}

// diagSink collects diagnostics and locates them in the parsed trees.
type diagSink struct {
	files map[string]*docFile
	list  ir.Diagnostics
	// origins names the overlay file of every node an overlay added.
	origins map[*yaml.Node]string
}

func (s *diagSink) errorf(l loc, op, rule, format string, args ...any) {
	s.add(ir.SeverityError, l, op, rule, fmt.Sprintf(format, args...))
}

func (s *diagSink) warnf(l loc, op, rule, format string, args ...any) {
	s.add(ir.SeverityWarning, l, op, rule, fmt.Sprintf(format, args...))
}

func (s *diagSink) add(sev ir.Severity, l loc, op, rule, msg string) {
	s.list = append(s.list, s.make(sev, l, op, rule, msg))
}

// make builds a located diagnostic without reporting it.
func (s *diagSink) make(sev ir.Severity, l loc, op, rule, msg string) ir.Diagnostic {
	src := s.source(l)
	return ir.Diagnostic{
		Severity: sev, Rule: rule, File: src.File, Line: src.Line, Column: src.Column,
		Pointer: l.pointer, Operation: op, Message: msg,
	}
}

// source turns a location into an ir.Source, reading line and column from the
// file's tree (the nearest node on the pointer's way when the exact one is
// gone, e.g. after a repair or a Swagger 2.0 conversion).
func (s *diagSink) source(l loc) ir.Source {
	src := ir.Source{File: l.file, Pointer: l.pointer}
	f := s.files[l.file]
	if f == nil {
		return src
	}
	src.File = f.display
	n := l.node
	if n == nil && f.root != nil {
		_, n = lookup(f.root, l.pointer)
	}
	if n != nil {
		src.Line, src.Column = n.Line, n.Column
		if o, ok := s.origins[n]; ok {
			src.File = o // the value was written in an overlay
		}
	}
	return src
}

// sorted returns the diagnostics ordered by file, line, column, pointer and
// then rule and message, so output is stable whatever order checks ran in.
func (s *diagSink) sorted() ir.Diagnostics {
	ds := s.list
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		switch {
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		case a.Column != b.Column:
			return a.Column < b.Column
		case a.Pointer != b.Pointer:
			return a.Pointer < b.Pointer
		case a.Rule != b.Rule:
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	// The same finding reached twice (a shared path item, the document's
	// security seen from every operation) is reported once.
	out := ds[:0]
	for i, d := range ds {
		if i == 0 || d != ds[i-1] {
			out = append(out, d)
		}
	}
	return out
}

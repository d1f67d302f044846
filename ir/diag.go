package ir

import (
	"fmt"
	"strings"
)

// Severity ranks a diagnostic.
type Severity int

const (
	// SeverityError stops lint (exit 1) and generate.
	SeverityError Severity = iota
	// SeverityWarning is reported; `lint --strict` makes it fatal.
	SeverityWarning
	// SeverityInfo is a finding to review, never fatal (not even under
	// `lint --strict`): an inferred pagination contract.
	SeverityInfo
)

// String returns "error", "warning" or "info".
func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	}
	return "error"
}

// Diagnostic is one located finding about a document.
type Diagnostic struct {
	Severity Severity
	// Rule is a short stable identifier ("retryable-status-auth"), for
	// machines and for docs.
	Rule string
	// File, Line, Column and Pointer locate the finding; Line and Column are
	// 0 when the loader gave none.
	File    string
	Line    int
	Column  int
	Pointer string
	// Operation is the operationId (or derived name); empty for findings
	// outside operations.
	Operation string
	Message   string
}

// String renders the diagnostic as
//
//	orders.yaml:42:9: createOrder (/paths/~1orders/post/x-retryable-status/1): 401 is never retried; remove it
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Column > 0 {
			fmt.Fprintf(&b, ":%d", d.Column)
		}
	}
	b.WriteString(": ")
	switch {
	case d.Operation != "" && d.Pointer != "":
		fmt.Fprintf(&b, "%s (%s): ", d.Operation, d.Pointer)
	case d.Operation != "":
		fmt.Fprintf(&b, "%s: ", d.Operation)
	case d.Pointer != "":
		fmt.Fprintf(&b, "(%s): ", d.Pointer)
	}
	b.WriteString(d.Message)
	return b.String()
}

// Diagnostics is a list of findings; as an error it reports them all.
type Diagnostics []Diagnostic

// Error joins the error-severity findings, one per line.
func (ds Diagnostics) Error() string {
	var lines []string
	for _, d := range ds {
		if d.Severity == SeverityError {
			lines = append(lines, d.String())
		}
	}
	return strings.Join(lines, "\n")
}

// HasErrors reports whether any finding is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns the error-severity findings, or nil when there are none, so
// a caller can write `if err := ds.Errors(); err != nil`.
func (ds Diagnostics) Errors() error {
	var errs Diagnostics
	for _, d := range ds {
		if d.Severity == SeverityError {
			errs = append(errs, d)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// Warnings returns the warning-severity findings.
func (ds Diagnostics) Warnings() Diagnostics { return ds.bySeverity(SeverityWarning) }

// Infos returns the info-severity findings.
func (ds Diagnostics) Infos() Diagnostics { return ds.bySeverity(SeverityInfo) }

func (ds Diagnostics) bySeverity(sev Severity) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == sev {
			out = append(out, d)
		}
	}
	return out
}

package mock

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FaultHeader is the request header that scripts faults per request, as a
// comma-separated list of the forms ParseFault accepts.
const FaultHeader = "X-Idemgen-Fault"

// FaultKind names one kind of fault.
type FaultKind string

// The kinds of fault.
const (
	// FaultDropAfterCommit runs the operation (through the ledger for a keyed
	// one, so the result is stored), counts the execution, then closes the
	// connection instead of sending the answer.
	FaultDropAfterCommit FaultKind = "drop-after-commit"
	// FaultResetBeforeBody resets the connection before the request body is
	// read: nothing is executed.
	FaultResetBeforeBody FaultKind = "reset-before-body"
	// FaultStatus answers Status (with probability Prob) without executing.
	FaultStatus FaultKind = "status"
	// FaultRetryAfter adds a Retry-After header (seconds or an HTTP-date) to
	// every answer it applies to.
	FaultRetryAfter FaultKind = "retry-after"
	// FaultLatency waits Latency before handling the request.
	FaultLatency FaultKind = "latency"
	// FaultSlowBody sends the answer's body Chunk bytes at a time, Interval
	// apart.
	FaultSlowBody FaultKind = "slow-body"
	// FaultCutStream cuts a text/event-stream answer after Events events.
	FaultCutStream FaultKind = "cut-stream"
)

// Fault is one fault to inject. Build it with the constructors
// (DropAfterCommit, Storm, ...) or ParseFault; On and Times narrow it.
type Fault struct {
	Kind       FaultKind
	Status     int
	Prob       float64
	RetryAfter string
	Latency    time.Duration
	Chunk      int
	Interval   time.Duration
	Events     int
	// Operation, when set, limits the fault to the operation with this
	// operationId (or, for operations without one, "METHOD /path").
	Operation string
	// Limit, when positive, applies the fault to the first Limit matching
	// requests only.
	Limit int
}

// DropAfterCommit loses the answer after the operation executed.
func DropAfterCommit() Fault { return Fault{Kind: FaultDropAfterCommit} }

// ResetBeforeBody resets the connection before reading the request body.
func ResetBeforeBody() Fault { return Fault{Kind: FaultResetBeforeBody} }

// Storm answers status with probability p (0 < p <= 1), never executing.
func Storm(status int, p float64) Fault { return Fault{Kind: FaultStatus, Status: status, Prob: p} }

// RetryAfter adds "Retry-After: v" (delta-seconds or an HTTP-date).
func RetryAfter(v string) Fault { return Fault{Kind: FaultRetryAfter, RetryAfter: v} }

// Latency delays the handling of each request by d.
func Latency(d time.Duration) Fault { return Fault{Kind: FaultLatency, Latency: d} }

// SlowBody sends the body chunk bytes at a time, interval apart.
func SlowBody(chunk int, interval time.Duration) Fault {
	return Fault{Kind: FaultSlowBody, Chunk: chunk, Interval: interval}
}

// CutStream cuts an event stream after n events.
func CutStream(n int) Fault { return Fault{Kind: FaultCutStream, Events: n} }

// On limits the fault to one operation.
func (f Fault) On(operation string) Fault { f.Operation = operation; return f }

// Times applies the fault to the first n matching requests only.
func (f Fault) Times(n int) Fault { f.Limit = n; return f }

// String gives the form ParseFault reads back.
func (f Fault) String() string {
	var s string
	switch f.Kind {
	case FaultStatus:
		s = strconv.Itoa(f.Status) + ":" + strconv.FormatFloat(f.Prob, 'g', -1, 64)
	case FaultRetryAfter:
		s = "retry-after=" + f.RetryAfter
	case FaultLatency:
		s = "latency=" + f.Latency.String()
	case FaultSlowBody:
		s = "slow-body=" + strconv.Itoa(f.Chunk) + "/" + f.Interval.String()
	case FaultCutStream:
		s = "cut-stream=" + strconv.Itoa(f.Events)
	default:
		s = string(f.Kind)
	}
	if f.Limit > 0 {
		s += "*" + strconv.Itoa(f.Limit)
	}
	if f.Operation != "" {
		s += "@" + f.Operation
	}
	return s
}

// maxFaultDelay bounds any wait a fault asks for, so that a request header
// cannot park a connection for long.
const maxFaultDelay = time.Minute

// ParseFault reads one fault:
//
//	drop-after-commit | reset-before-body | STATUS:PROB (503:0.3) |
//	retry-after=SECONDS|HTTP-DATE | latency=DURATION | slow-body=BYTES/DURATION |
//	cut-stream=EVENTS
//
// optionally followed by *N (first N matching requests only) and
// @OPERATION (one operation only), in that order.
func ParseFault(s string) (Fault, error) {
	s = strings.TrimSpace(s)
	var f Fault
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		f.Operation = s[i+1:]
		s = s[:i]
		if f.Operation == "" {
			return Fault{}, fmt.Errorf("fault %q: empty operation after @", s)
		}
	}
	if i := strings.LastIndexByte(s, '*'); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < 1 {
			return Fault{}, fmt.Errorf("fault %q: *N needs a positive count", s)
		}
		f.Limit = n
		s = s[:i]
	}
	name, arg, hasArg := strings.Cut(s, "=")
	switch {
	case s == string(FaultDropAfterCommit):
		f.Kind = FaultDropAfterCommit
	case s == string(FaultResetBeforeBody):
		f.Kind = FaultResetBeforeBody
	case hasArg && name == "retry-after":
		f.Kind = FaultRetryAfter
		if n, err := strconv.Atoi(arg); err == nil {
			if n < 0 {
				return Fault{}, fmt.Errorf("fault %q: negative seconds", s)
			}
		} else if _, err := time.Parse(time.RFC1123, arg); err != nil {
			return Fault{}, fmt.Errorf("fault %q: retry-after is delta-seconds or an HTTP-date", s)
		}
		f.RetryAfter = arg
	case hasArg && name == "latency":
		d, err := time.ParseDuration(arg)
		if err != nil || d < 0 || d > maxFaultDelay {
			return Fault{}, fmt.Errorf("fault %q: latency is a duration up to %v", s, maxFaultDelay)
		}
		f.Kind, f.Latency = FaultLatency, d
	case hasArg && name == "slow-body":
		c, iv, ok := strings.Cut(arg, "/")
		n, err1 := strconv.Atoi(c)
		d, err2 := time.ParseDuration(iv)
		if !ok || err1 != nil || err2 != nil || n < 1 || d < 0 || d > time.Second {
			return Fault{}, fmt.Errorf("fault %q: slow-body is BYTES/DURATION with a duration up to 1s", s)
		}
		f.Kind, f.Chunk, f.Interval = FaultSlowBody, n, d
	case hasArg && name == "cut-stream":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return Fault{}, fmt.Errorf("fault %q: cut-stream needs an event count", s)
		}
		f.Kind, f.Events = FaultCutStream, n
	default:
		code, prob, ok := strings.Cut(s, ":")
		st, err1 := strconv.Atoi(code)
		p, err2 := strconv.ParseFloat(prob, 64)
		if !ok || err1 != nil || err2 != nil || st < 100 || st > 599 || !(p > 0 && p <= 1) {
			return Fault{}, fmt.Errorf("fault %q: not drop-after-commit, reset-before-body, STATUS:PROB, retry-after=, latency=, slow-body= or cut-stream=", s)
		}
		f.Kind, f.Status, f.Prob = FaultStatus, st, p
	}
	return f, nil
}

// ParseFaults reads a comma-separated list; an HTTP-date's own comma is kept
// with its retry-after.
func ParseFaults(s string) ([]Fault, error) {
	var out []Fault
	parts := strings.Split(s, ",")
	for i := 0; i < len(parts); i++ {
		p := strings.TrimSpace(parts[i])
		if p == "" {
			continue
		}
		// "retry-after=Wed, 21 Oct 2015 07:28:00 GMT" was split at its comma.
		if strings.HasPrefix(p, "retry-after=") && i+1 < len(parts) {
			if _, err := strconv.Atoi(strings.TrimPrefix(p, "retry-after=")); err != nil {
				p += "," + parts[i+1]
				i++
			}
		}
		f, err := ParseFault(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

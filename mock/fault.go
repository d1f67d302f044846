package mock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// maxFaultDelay bounds all the waits one request's faults ask for, added
// up (latencies, slow-body intervals, event intervals), so that a request
// header cannot park a connection for long.
const maxFaultDelay = time.Minute

// The bounds of one request's X-Idemgen-Fault headers: a fault is a few
// dozen bytes, and more than a handful on one request is a typo or an
// attack on the mock itself.
const (
	maxFaultEntries    = 16
	maxFaultHeaderSize = 1024
)

// ErrTooManyFaults is returned (wrapped) by ParseFaults for a list of more
// than 16 faults, and answered 400 for a request that scripts more.
var ErrTooManyFaults = errors.New("too many faults")

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
	s, err := f.parseNarrowing(s)
	if err != nil {
		return Fault{}, err
	}
	name, arg, hasArg := strings.Cut(s, "=")
	if parse := argParsers[name]; hasArg && parse != nil {
		err = parse(&f, arg)
	} else {
		err = f.parsePlain(s)
	}
	if err != nil {
		return Fault{}, fmt.Errorf("fault %q: %w", s, err)
	}
	return f, nil
}

// parseNarrowing reads the @OPERATION and *N suffixes into f and returns
// what is left.
func (f *Fault) parseNarrowing(s string) (string, error) {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		f.Operation = s[i+1:]
		s = s[:i]
		if f.Operation == "" {
			return "", fmt.Errorf("fault %q: empty operation after @", s)
		}
	}
	if i := strings.LastIndexByte(s, '*'); i >= 0 {
		n, err := strconv.Atoi(s[i+1:])
		if err != nil || n < 1 {
			return "", fmt.Errorf("fault %q: *N needs a positive count", s)
		}
		f.Limit = n
		s = s[:i]
	}
	return s, nil
}

// argParsers read the NAME=ARG faults' arguments.
var argParsers = map[string]func(f *Fault, arg string) error{
	"retry-after": (*Fault).parseRetryAfter,
	"latency":     (*Fault).parseLatency,
	"slow-body":   (*Fault).parseSlowBody,
	"cut-stream":  (*Fault).parseCutStream,
}

func (f *Fault) parseRetryAfter(arg string) error {
	if n, err := strconv.Atoi(arg); err == nil {
		if n < 0 {
			return errors.New("negative seconds")
		}
	} else if _, err := time.Parse(time.RFC1123, arg); err != nil {
		return errors.New("retry-after is delta-seconds or an HTTP-date")
	}
	f.Kind, f.RetryAfter = FaultRetryAfter, arg
	return nil
}

func (f *Fault) parseLatency(arg string) error {
	d, err := time.ParseDuration(arg)
	if err != nil || d < 0 || d > maxFaultDelay {
		return fmt.Errorf("latency is a duration up to %v", maxFaultDelay)
	}
	f.Kind, f.Latency = FaultLatency, d
	return nil
}

func (f *Fault) parseSlowBody(arg string) error {
	c, iv, ok := strings.Cut(arg, "/")
	n, err1 := strconv.Atoi(c)
	d, err2 := time.ParseDuration(iv)
	if !ok || err1 != nil || err2 != nil || n < 1 || d < 0 || d > time.Second {
		return errors.New("slow-body is BYTES/DURATION with a duration up to 1s")
	}
	f.Kind, f.Chunk, f.Interval = FaultSlowBody, n, d
	return nil
}

func (f *Fault) parseCutStream(arg string) error {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 0 {
		return errors.New("cut-stream needs an event count")
	}
	f.Kind, f.Events = FaultCutStream, n
	return nil
}

// parsePlain reads the faults without an argument, and STATUS:PROB.
func (f *Fault) parsePlain(s string) error {
	switch s {
	case string(FaultDropAfterCommit), string(FaultResetBeforeBody):
		f.Kind = FaultKind(s)
		return nil
	}
	code, prob, ok := strings.Cut(s, ":")
	st, err1 := strconv.Atoi(code)
	p, err2 := strconv.ParseFloat(prob, 64)
	if !ok || err1 != nil || err2 != nil || st < 100 || st > 599 || !(p > 0 && p <= 1) {
		return errors.New("not drop-after-commit, reset-before-body, STATUS:PROB, retry-after=, latency=, slow-body= or cut-stream=")
	}
	f.Kind, f.Status, f.Prob = FaultStatus, st, p
	return nil
}

// ParseFaults reads a comma-separated list of at most 16 faults; an
// HTTP-date's own comma is kept with its retry-after.
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
		if len(out) == maxFaultEntries {
			return nil, fmt.Errorf("%w: at most %d in one list", ErrTooManyFaults, maxFaultEntries)
		}
		f, err := ParseFault(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// faultSet is the faults that apply to one request, folded.
type faultSet struct {
	drop, reset bool
	storm       *Fault
	retryAfter  string
	latency     time.Duration
	chunk       int
	interval    time.Duration
	cutAfter    int // -1: no cut
	cut         bool
	// waitLeft is what remains of the request's maxFaultDelay.
	waitLeft time.Duration
}

func foldFaults(faults []Fault) faultSet {
	ff := faultSet{waitLeft: maxFaultDelay}
	for _, f := range faults {
		ff.add(f)
	}
	return ff
}

func (ff *faultSet) add(f Fault) {
	switch f.Kind {
	case FaultDropAfterCommit:
		ff.drop = true
	case FaultResetBeforeBody:
		ff.reset = true
	case FaultStatus:
		if ff.storm == nil {
			c := f
			ff.storm = &c
		}
	case FaultRetryAfter:
		ff.retryAfter = f.RetryAfter
	case FaultLatency:
		// Clamped one by one first: Latency(d) takes any duration, and a
		// sum of huge ones would overflow.
		ff.latency = min(ff.latency+min(max(f.Latency, 0), maxFaultDelay), maxFaultDelay)
	case FaultSlowBody:
		ff.chunk, ff.interval = f.Chunk, f.Interval
	case FaultCutStream:
		ff.cut, ff.cutAfter = true, f.Events
	}
}

// wait sleeps d, or what is left of the request's wait budget if that is
// less; once the budget is spent it returns at once without sleeping.
func (s *Server) wait(ctx context.Context, ff *faultSet, d time.Duration) error {
	d = min(d, ff.waitLeft)
	if d <= 0 {
		return nil
	}
	ff.waitLeft -= d
	return s.opts.Sleep(ctx, d)
}

// faultsFor is the configured faults and the request's own that apply to
// this request, counting each one with a limit.
func (s *Server) faultsFor(r *http.Request, rt *route) ([]Fault, error) {
	scripted, err := requestFaults(r.Header.Values(FaultHeader))
	if err != nil {
		return nil, err
	}
	var out []Fault
	for i, f := range s.opts.Faults {
		if s.takeFault("flag#"+strconv.Itoa(i), f, rt) {
			out = append(out, f)
		}
	}
	for _, f := range scripted {
		// A scripted fault's limit counts per operation.
		if s.takeFault("header#"+f.String()+"#"+rt.id, f, rt) {
			out = append(out, f)
		}
	}
	return out, nil
}

// requestFaults parses every X-Idemgen-Fault value of a request, refusing
// more than maxFaultEntries faults or maxFaultHeaderSize bytes in all.
func requestFaults(values []string) ([]Fault, error) {
	size := 0
	for _, h := range values {
		size += len(h)
	}
	if size > maxFaultHeaderSize {
		return nil, fmt.Errorf("%s is %d bytes; at most %d bytes", FaultHeader, size, maxFaultHeaderSize)
	}
	var out []Fault
	for _, h := range values {
		fs, err := ParseFaults(h)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
		if len(out) > maxFaultEntries {
			return nil, fmt.Errorf("%w: at most %d on one request", ErrTooManyFaults, maxFaultEntries)
		}
	}
	return out, nil
}

// takeFault reports whether f applies to a request of rt, counting it
// against its limit under id when it does.
func (s *Server) takeFault(id string, f Fault, rt *route) bool {
	if f.Operation != "" && f.Operation != rt.id {
		return false
	}
	if f.Limit <= 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.applied[id] >= f.Limit {
		return false
	}
	bump(s.applied, id)
	return true
}

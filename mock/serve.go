package mock

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// redirectPath is the target of every Location header the mock builds, so
// that a client following a redirect stays on the mock.
const redirectPath = "/__idemgen/redirected"

// OpStats counts what happened to one operation's requests.
type OpStats struct {
	// Requests counts every request routed to the operation.
	Requests int `json:"requests"`
	// Executions counts the times the operation "ran": its answer was
	// produced (and, for a keyed one, stored), whatever became of it
	// afterwards. Replays, rejections and storm answers are not executions.
	Executions int `json:"executions"`
	// Rejected counts requests that failed validation (400/401/413/415) or a
	// precondition (412).
	Rejected int `json:"rejected"`
	// Faults counts the faults applied, by kind.
	Faults map[string]int `json:"faults,omitempty"`
	// Keys counts executions per idempotency key.
	Keys map[string]int `json:"keys,omitempty"`
}

// Stats is the body of GET /__idemgen/stats.
type Stats struct {
	Operations map[string]*OpStats `json:"operations"`
}

// Stats returns a copy of the counts.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := Stats{Operations: map[string]*OpStats{}}
	for id, st := range s.stats {
		c := *st
		c.Faults = copyMap(st.Faults)
		c.Keys = copyMap(st.Keys)
		out.Operations[id] = &c
	}
	return out
}

func copyMap(m map[string]int) map[string]int {
	if m == nil {
		return nil
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Executions is how many times an operation executed.
func (s *Server) Executions(operation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stats[operation]; st != nil {
		return st.Executions
	}
	return 0
}

// Requests is how many requests reached an operation.
func (s *Server) Requests(operation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stats[operation]; st != nil {
		return st.Requests
	}
	return 0
}

// ResetStats clears the counts (not the ledger).
func (s *Server) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = map[string]*OpStats{}
}

func (s *Server) count(id string, f func(*OpStats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats[id]
	if st == nil {
		st = &OpStats{}
		s.stats[id] = st
	}
	f(st)
}

// exchange is what one request's log line reports.
type exchange struct {
	op         string
	status     int
	validation string
	faults     []string
	key        string
	start      time.Time
	params     map[string]string // the path parameters' values
}

func (s *Server) logLine(r *http.Request, x *exchange) {
	if s.opts.Log == nil {
		return
	}
	fault := "-"
	if len(x.faults) > 0 {
		fault = strings.Join(x.faults, ",")
	}
	op := x.op
	if op == "" {
		op = "-"
	}
	status := "none" // the connection was closed without an answer
	if x.status != 0 {
		status = strconv.Itoa(x.status)
	}
	key := ""
	if x.key != "" {
		key = fmt.Sprintf(" key=%q", x.key)
	}
	line := fmt.Sprintf("%s %s op=%q%s status=%s validation=%q fault=%s dur=%s\n",
		r.Method, r.URL.RequestURI(), op, key, status, x.validation, fault, time.Since(x.start).Round(time.Microsecond))
	s.logMu.Lock()
	defer s.logMu.Unlock()
	io := s.opts.Log
	io.Write([]byte(line))
}

// ServeHTTP validates, applies faults and answers (or forwards).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &exchange{start: time.Now(), validation: "ok"}
	sw := &statusWriter{ResponseWriter: w}
	defer func() { x.status = sw.status; s.logLine(r, x) }()
	if s.serveAdmin(sw, r, x) {
		return
	}
	rt, pathParams := s.route(sw, r, x)
	if rt == nil {
		return
	}
	faults, ok := s.requestFaults(sw, r, rt, x)
	if !ok {
		return
	}
	if s.opts.Proxy != nil {
		s.proxy(sw, r, rt, pathParams, x)
		return
	}
	ff := foldFaults(faults)
	if s.answeredByFaults(sw, r, rt, &ff, x) || !s.acceptRequest(sw, r, rt, pathParams, x) {
		return
	}
	s.run(sw, r, rt, ff, x)
}

// serveAdmin answers the mock's own paths; it reports whether it did.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request, x *exchange) bool {
	switch r.URL.Path {
	case StatsPath:
		s.serveStats(w, r)
	case ResetPath:
		s.serveReset(w, r)
	case redirectPath:
		// Where the mock's Location headers point: a 3xx answer leads here.
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte("mock"))
	default:
		return false
	}
	x.validation = "admin"
	return true
}

// route finds the operation of a request and counts the request; without
// one it answers 404, or 405 naming the methods the path has.
func (s *Server) route(w http.ResponseWriter, r *http.Request, x *exchange) (*route, map[string]string) {
	rt, pathParams, allowed := s.match(r.Method, r.URL)
	if rt == nil {
		x.validation = "no route"
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeProblem(w, http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed",
				fmt.Sprintf("%s is not an operation of %s; allowed: %s", r.Method, r.URL.Path, strings.Join(allowed, ", ")), nil)
			return nil, nil
		}
		writeProblem(w, http.StatusNotFound, "no-route", "No such operation",
			fmt.Sprintf("no path of %s matches %s", s.name, r.URL.Path), nil)
		return nil, nil
	}
	x.op, x.params = rt.id, pathParams
	if rt.key != "" {
		x.key = r.Header.Get(rt.key)
		if len(x.key) > 64 {
			x.key = x.key[:64] + "..."
		}
	}
	s.count(rt.id, func(st *OpStats) { st.Requests++ })
	return rt, pathParams
}

// requestFaults is the faults that apply to the request, logged and
// counted; a bad X-Idemgen-Fault is answered 400 (ok false).
func (s *Server) requestFaults(w http.ResponseWriter, r *http.Request, rt *route, x *exchange) ([]Fault, bool) {
	faults, err := s.faultsFor(r, rt)
	if err != nil {
		x.validation = "bad fault header"
		writeProblem(w, http.StatusBadRequest, "bad-fault", "Bad "+FaultHeader, err.Error(), nil)
		return nil, false
	}
	for _, f := range faults {
		x.faults = append(x.faults, f.String())
	}
	if len(faults) > 0 {
		s.count(rt.id, func(st *OpStats) {
			if st.Faults == nil {
				st.Faults = map[string]int{}
			}
			for _, f := range faults {
				st.Faults[string(f.Kind)]++
			}
		})
	}
	return faults, true
}

// answeredByFaults applies the faults that come before the request is read
// (latency, reset, Retry-After, a storm); it reports whether the request is
// done with.
func (s *Server) answeredByFaults(w *statusWriter, r *http.Request, rt *route, ff *faultSet, x *exchange) bool {
	if ff.latency > 0 {
		if err := s.wait(r.Context(), ff, ff.latency); err != nil {
			return true
		}
	}
	if ff.reset {
		resetConn(w)
		return true
	}
	if ff.retryAfter != "" {
		w.Header().Set("Retry-After", ff.retryAfter)
	}
	if ff.storm != nil && s.chance(ff.storm.Prob) {
		s.answer(w, r, rt, answerFor{status: ff.storm.Status}, *ff)
		return true
	}
	return false
}

// acceptRequest reads the body within MaxBody and validates the request,
// answering 413 or the validation's problem when it cannot go on.
func (s *Server) acceptRequest(w http.ResponseWriter, r *http.Request, rt *route, pathParams map[string]string, x *exchange) bool {
	body, err := readBody(r, s.opts.MaxBody)
	if err != nil {
		x.validation = "body too large"
		s.count(rt.id, func(st *OpStats) { st.Rejected++ })
		writeProblem(w, http.StatusRequestEntityTooLarge, "body-too-large", "Request body too large",
			fmt.Sprintf("the body exceeds %d bytes", s.opts.MaxBody), nil)
		return false
	}
	if p := s.validateRequest(r, rt, pathParams, body); p != nil {
		x.validation = p.summary()
		s.count(rt.id, func(st *OpStats) { st.Rejected++ })
		writeProblem(w, p.Status, p.Type, p.Title, p.Detail, p.Errors)
		return false
	}
	return true
}

// run executes the operation, through the ledger for a keyed one, with the
// answer lost on the way out under drop-after-commit.
func (s *Server) run(w *statusWriter, r *http.Request, rt *route, ff faultSet, x *exchange) {
	exec := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.execute(w, r, rt, ff, x)
	})
	var out http.ResponseWriter = w
	if ff.drop {
		out = &dropWriter{statusWriter: w}
	}
	if rt.key != "" {
		if rt.ledger != nil {
			rt.ledger.Handle(rt.id, exec).ServeHTTP(out, r)
			return
		}
	}
	exec.ServeHTTP(out, r)
}

// execute is the operation "running": the precondition, the count, the
// answer.
func (s *Server) execute(w http.ResponseWriter, r *http.Request, rt *route, ff faultSet, x *exchange) {
	if rt.ifMatch {
		if tag := r.Header.Get("If-Match"); tag != "" && tag != "*" && !matchesETag(tag, s.etag(r.URL.Path)) {
			x.validation = "stale If-Match"
			s.count(rt.id, func(st *OpStats) { st.Rejected++ })
			s.answer(w, r, rt, answerFor{status: http.StatusPreconditionFailed, problem: "The resource changed since it was read (stale If-Match); read it again and merge."}, ff)
			return
		}
	}
	key := ""
	if rt.key != "" {
		key = strings.Trim(r.Header.Get(rt.key), `"`)
	}
	s.count(rt.id, func(st *OpStats) {
		st.Executions++
		if key != "" {
			if st.Keys == nil {
				st.Keys = map[string]int{}
			}
			bump(st.Keys, key)
		}
	})
	pref := parsePrefer(r.Header.Values("Prefer"))
	if _, status := pickResponse(rt.op, pref.code); rt.ifMatch && !rt.safe && status >= 200 && status < 300 {
		// A successful write makes a new version; its answer carries the
		// new ETag.
		s.mu.Lock()
		bump(s.versions, r.URL.Path)
		s.mu.Unlock()
	}
	if rt.state != nil && (pref.code == 0 || pref.code/100 == 2) {
		s.serveState(w, r, rt, pref, ff, x)
		return
	}
	s.answer(w, r, rt, answerFor{prefer: pref}, ff)
}

// etag is the current tag of the resource at path.
func (s *Server) etag(path string) string {
	s.mu.Lock()
	v := s.versions[path]
	s.mu.Unlock()
	sum := sha256.Sum256([]byte(path + "\x00" + strconv.Itoa(v)))
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

func matchesETag(header, current string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == current {
			return true
		}
	}
	return false
}

func (s *Server) chance(p float64) bool {
	if p >= 1 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rnd.Float64() < p
}

func (s *Server) serveStats(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(s.Stats())
	case http.MethodDelete:
		s.ResetStats()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, DELETE")
		writeProblem(w, http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed", "GET or DELETE "+StatsPath, nil)
	}
}

// statusWriter remembers the status sent, for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// dropWriter loses the answer: when the (committed) response is about to be
// sent, it closes the connection instead.
type dropWriter struct {
	*statusWriter
	dropped bool
}

func (w *dropWriter) WriteHeader(code int) { w.drop() }

func (w *dropWriter) Write(b []byte) (int, error) {
	w.drop()
	return 0, errDropped
}

func (w *dropWriter) drop() {
	if w.dropped {
		return
	}
	w.dropped = true
	w.statusWriter.status = 0
	closeConn(w.statusWriter.ResponseWriter, false)
}

var errDropped = errors.New("mock: response dropped by drop-after-commit")

// resetConn closes the connection with a TCP reset, before reading anything.
func resetConn(w http.ResponseWriter) { closeConn(w, true) }

func closeConn(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 or a recorder: abort the handler, which resets the stream.
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

// prefer is the parsed Prefer header (RFC 7240), as Prism reads it.
type prefer struct {
	code    int
	example string
	dynamic *bool
}

func parsePrefer(values []string) prefer {
	var p prefer
	for _, v := range values {
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
			k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			val = strings.Trim(strings.TrimSpace(val), `"`)
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "code":
				if n, err := strconv.Atoi(val); err == nil && n >= 100 && n <= 599 {
					p.code = n
				}
			case "example":
				p.example = val
			case "dynamic":
				b := val == "true"
				p.dynamic = &b
			}
		}
	}
	return p
}

func mediaBase(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

func isJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json")
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

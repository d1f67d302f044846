package mock

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/runtime/problem"
)

// answerFor says which answer to build.
type answerFor struct {
	status     int    // forced status (storm, 412); 0: choose
	prefer     prefer // the request's Prefer header
	problem    string // a message to put into an error body
	noExamples bool
}

// defaultEvents is how many events an event-stream answer carries.
const defaultEvents = 3

// pickResponse chooses the declared response for a forced or preferred
// status, else the first 2xx, else default, else the lowest declared.
func pickResponse(op *openapi3.Operation, code int) (*openapi3.Response, int) {
	if op.Responses == nil {
		if code == 0 {
			code = http.StatusOK
		}
		return nil, code
	}
	get := func(k string) *openapi3.Response {
		if ref := op.Responses.Value(k); ref != nil {
			return ref.Value
		}
		return nil
	}
	if code != 0 {
		if r := get(strconv.Itoa(code)); r != nil {
			return r, code
		}
		if r := get(strconv.Itoa(code/100) + "XX"); r != nil {
			return r, code
		}
		return get("default"), code
	}
	var codes []int
	for k := range op.Responses.Map() {
		if n, err := strconv.Atoi(k); err == nil {
			codes = append(codes, n)
		}
	}
	sort.Ints(codes)
	for _, c := range codes {
		if c >= 200 && c < 300 {
			return get(strconv.Itoa(c)), c
		}
	}
	if r := get("2XX"); r != nil {
		return r, http.StatusOK
	}
	if r := get("default"); r != nil {
		return r, http.StatusOK
	}
	if len(codes) > 0 {
		return get(strconv.Itoa(codes[0])), codes[0]
	}
	return nil, http.StatusOK
}

// pickMedia prefers what Accept asks for, then JSON, then the first type.
func pickMedia(content openapi3.Content, accept string) (string, *openapi3.MediaType) {
	if len(content) == 0 {
		return "", nil
	}
	keys := sortedKeys(content)
	for _, a := range strings.Split(accept, ",") {
		mt := mediaBase(a)
		if mt == "" || mt == "*/*" {
			continue
		}
		for _, k := range keys {
			if mediaBase(k) == mt {
				return k, content[k]
			}
		}
	}
	for _, k := range keys {
		if isJSON(mediaBase(k)) {
			return k, content[k]
		}
	}
	return keys[0], content[keys[0]]
}

// build is the answer to send, before faults shape its delivery.
type built struct {
	status  int
	header  http.Header
	media   string
	body    []byte
	events  [][]byte // text/event-stream: the data of each event
	problem bool
}

func (s *Server) newValueBuilder() *valueBuilder {
	g := &valueBuilder{response: true}
	if s.opts.Dynamic {
		g.rnd = s.newRand()
	}
	return g
}

// newRand is a random source seeded from the server's, for one answer.
func (s *Server) newRand() *rand.Rand {
	s.mu.Lock()
	seed := s.rnd.Uint64()
	s.mu.Unlock()
	return rand.New(rand.NewPCG(seed, seed>>1|1))
}

// build makes the answer of an operation.
func (s *Server) build(r *http.Request, rt *route, a answerFor) built {
	code := a.status
	if code == 0 {
		code = a.prefer.code
	}
	resp, status := pickResponse(rt.op, code)
	b := built{status: status, header: http.Header{}}
	if resp == nil {
		if status >= 400 {
			b.problemBody(a.problem)
		}
		return b
	}
	g := s.newValueBuilder()
	if d := a.prefer.dynamic; d != nil && *d != (g.rnd != nil) {
		// Prefer: dynamic=true|false overrides the server's mode for
		// this answer.
		g.rnd = nil
		if *d {
			g.rnd = s.newRand()
		}
	}
	s.buildHeaders(&b, r, resp, g)
	if status == http.StatusNoContent || status == http.StatusNotModified || status < 200 {
		return b
	}
	mt, media := pickMedia(resp.Content, r.Header.Get("Accept"))
	if media == nil {
		return b
	}
	b.media = mt
	if mediaBase(mt) == "text/event-stream" {
		b.events = events(g, media)
		return b
	}
	b.body = encode(mediaBase(mt), s.bodyValue(media, a, g), media)
	return b
}

// problemBody makes b a problem document: the answer of an error status the
// operation does not declare.
func (b *built) problemBody(msg string) {
	b.problem = true
	b.media = problem.ContentType
	if msg == "" {
		msg = http.StatusText(b.status)
	}
	body, _ := json.Marshal(Problem{Type: problemBase + "fault", Title: http.StatusText(b.status), Status: b.status, Detail: msg})
	b.body = append(body, '\n')
}

// buildHeaders sets the response's declared headers, but those that frame
// the message; ETag and Location point at the mock's own state.
func (s *Server) buildHeaders(b *built, r *http.Request, resp *openapi3.Response, g *valueBuilder) {
	for _, name := range sortedKeys(resp.Headers) {
		h := resp.Headers[name]
		if h == nil || h.Value == nil || framing[http.CanonicalHeaderKey(name)] {
			continue
		}
		switch {
		case strings.EqualFold(name, "ETag"):
			b.header.Set(name, s.etag(r.URL.Path))
		case strings.EqualFold(name, "Location") || strings.EqualFold(name, "Content-Location"):
			b.header.Set(name, "http://"+hostOf(r)+redirectPath)
		default:
			b.header.Set(name, headerValue(g, &h.Value.Parameter))
		}
	}
}

// events are the data of an event stream's events: one value of the schema
// each, on one line.
func events(g *valueBuilder, media *openapi3.MediaType) [][]byte {
	var out [][]byte
	for i := 0; i < defaultEvents; i++ {
		v := g.value(media.Schema)
		data, _ := json.Marshal(v)
		if str, ok := v.(string); ok {
			data = []byte(strings.ReplaceAll(str, "\n", " "))
		}
		out = append(out, data)
	}
	return out
}

// bodyValue is the value of an answer's body: an example, else one built
// from the schema, with the message of a forced error put in.
func (s *Server) bodyValue(media *openapi3.MediaType, a answerFor, g *valueBuilder) any {
	v, found := any(nil), false
	if !a.noExamples {
		v, found = s.example(media, a.prefer.example, g)
	}
	if !found {
		v = g.value(media.Schema)
	}
	if a.problem != "" {
		if obj, ok := v.(map[string]any); ok {
			for _, k := range []string{"message", "detail"} {
				if _, isStr := obj[k].(string); isStr {
					obj[k] = a.problem
				}
			}
		}
	}
	return v
}

// example is the named example, or (static mode) the media type's example or
// first valid named one.
func (s *Server) example(media *openapi3.MediaType, name string, g *valueBuilder) (any, bool) {
	if name != "" {
		if ex := media.Examples[name]; ex != nil && ex.Value != nil {
			return ex.Value.Value, true
		}
	}
	if g.rnd != nil {
		return nil, false
	}
	valid := func(v any) bool {
		return media.Schema == nil || media.Schema.Value == nil ||
			media.Schema.Value.VisitJSON(v, openapi3.VisitAsResponse()) == nil
	}
	if media.Example != nil && valid(media.Example) {
		return media.Example, true
	}
	for _, k := range sortedKeys(media.Examples) {
		if ex := media.Examples[k]; ex != nil && ex.Value != nil && ex.Value.Value != nil && valid(ex.Value.Value) {
			return ex.Value.Value, true
		}
	}
	return nil, false
}

func encode(mt string, v any, media *openapi3.MediaType) []byte {
	switch {
	case isJSON(mt):
		b, _ := json.Marshal(v)
		return b
	case mt == "application/x-www-form-urlencoded":
		q := url.Values{}
		if obj, ok := v.(map[string]any); ok {
			for _, k := range sortedKeys(obj) {
				q.Set(k, scalarString(obj[k]))
			}
		}
		return []byte(q.Encode())
	default:
		if str, ok := v.(string); ok {
			return []byte(str)
		}
		if v == nil {
			return nil
		}
		b, _ := json.Marshal(v)
		return b
	}
}

// framing are the headers net/http and the message framing own: a
// declared "Transfer-Encoding: string" or "Content-Encoding: gzip" on a plain
// body would break the answer, so the mock never sends them from the schema.
var framing = map[string]bool{
	"Content-Type": true, "Content-Length": true, "Content-Encoding": true, "Transfer-Encoding": true,
	"Connection": true, "Keep-Alive": true, "Upgrade": true, "Trailer": true, "Te": true,
}

func hostOf(r *http.Request) string {
	if r.Host != "" {
		return r.Host
	}
	return "localhost"
}

func headerValue(g *valueBuilder, p *openapi3.Parameter) string {
	if p.Schema == nil {
		if p.Example != nil {
			return scalarString(p.Example)
		}
		return "value"
	}
	return scalarString(g.value(p.Schema))
}

func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = scalarString(e)
		}
		return strings.Join(parts, ",")
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			parts = append(parts, k, scalarString(x[k]))
		}
		return strings.Join(parts, ",")
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// answer builds and sends the answer, shaped by the faults; it returns the
// status.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, rt *route, a answerFor, ff faultSet) int {
	return s.send(w, r, s.build(r, rt, a), ff)
}

// send writes a built answer, shaped by the faults; it returns the status.
func (s *Server) send(w http.ResponseWriter, r *http.Request, b built, ff faultSet) int {
	for k, vs := range b.header {
		if k == "Retry-After" && w.Header().Get(k) != "" {
			continue // a fault's Retry-After wins
		}
		w.Header()[k] = vs
	}
	if b.media != "" {
		w.Header().Set("Content-Type", b.media)
	}
	if b.events != nil {
		s.stream(w, r, b, ff)
		return b.status
	}
	if b.body != nil && ff.chunk == 0 {
		w.Header().Set("Content-Length", strconv.Itoa(len(b.body)))
	}
	w.WriteHeader(b.status)
	if r.Method == http.MethodHead || len(b.body) == 0 {
		return b.status
	}
	if ff.chunk == 0 {
		w.Write(b.body)
		return b.status
	}
	rc := http.NewResponseController(w)
	for off := 0; off < len(b.body); off += ff.chunk {
		end := min(off+ff.chunk, len(b.body))
		if _, err := w.Write(b.body[off:end]); err != nil {
			break
		}
		rc.Flush()
		if end < len(b.body) && s.wait(r.Context(), &ff, ff.interval) != nil {
			break
		}
	}
	return b.status
}

// stream sends an event stream, event by event, cut when asked.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, b built, ff faultSet) {
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(b.status)
	rc := http.NewResponseController(w)
	rc.Flush()
	start := 0
	if last, err := strconv.Atoi(r.Header.Get("Last-Event-ID")); err == nil && last >= 0 {
		start = last
	}
	for i, data := range b.events {
		if ff.cut && i >= ff.cutAfter {
			closeConn(w, false)
			return
		}
		fmt.Fprintf(w, "id: %d\ndata: %s\n\n", start+i+1, data)
		rc.Flush()
		if ff.interval > 0 && s.wait(r.Context(), &ff, ff.interval) != nil {
			return
		}
	}
	if ff.cut && len(b.events) <= ff.cutAfter {
		return
	}
}

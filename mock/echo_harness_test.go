package mock

// echoHarnessSource is echo.go of the harness program: it serves the
// generated server with the echo Handler (client/zz_echo.go) on 127.0.0.1
// and sends every call marked Echo through a second client.
//
// A call agrees when, field by field, the arguments the handler received
// equal the ones the caller passed, and the value the client decoded
// equals the one the handler returned. Equal means reflect.DeepEqual but
// for what the wire cannot carry, and only that:
//   - a nil and an empty slice or map are equal (an omitted optional list
//     or object reads back as nil);
//   - times are equal when they name the same instant (time.Time.Equal: the
//     zone and the monotonic reading do not travel);
//   - json.RawMessage values are equal when they hold the same JSON value
//     (whitespace and member order are not kept);
//   - an io.Reader argument, or a file's Content, is compared by the bytes
//     read from it;
//   - a file sent without a Content-Type is compared as the type the
//     client sends for it (echoMediaSource says which);
//   - the body of an <Op>Stream method is compared with its "stream"
//     member true, which that method sends whatever the caller set;
//   - in parameters and form bodies, an empty object (no members set), a
//     list of only empty objects and an absent value are equal: the pairs
//     of a form or a query cannot name an object that has no members;
//   - a Content-Length, Transfer-Encoding or Content-Type response header
//     is what net/http measured or the server encoded, not what the
//     handler said: the handler's value is not sent, so the decoded one is
//     taken as the handler's.
//
// The idempotency key is not normalized: the echo call sets it, so the
// handler must receive it as sent. A mismatch names the first differing
// path: "received[1].Filter.Status" (the handler's second argument) or
// "returned.Body.Items[0].SKU".
const echoHarnessSource = `package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"

	api "conformance/client"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

type echoResult struct {
	Op      string ` + "`json:\"op\"`" + `
	Outcome string ` + "`json:\"outcome\"`" + `
	Detail  string ` + "`json:\"detail,omitempty\"`" + `
}

// echoState is what the handler saw and answered for the call in flight.
type echoState struct {
	mu       sync.Mutex
	calls    map[string]call
	received []any
	returned any
	saw      bool
}

func (s *echoState) handler() *api.ZzEcho {
	return &api.ZzEcho{
		Saw: func(op string, args ...any) {
			s.mu.Lock()
			defer s.mu.Unlock()
			for i, a := range args {
				if r, ok := a.(io.Reader); ok {
					args[i], _ = io.ReadAll(io.LimitReader(r, 1<<24))
				}
			}
			s.received, s.saw = args, true
		},
		Answer: func(ctx context.Context, op string, out any) error {
			if out == nil {
				return nil
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			v, cl := reflect.ValueOf(out).Elem(), s.calls[op]
			if d, ok := out.(**idemsrv.Download); ok {
				b := echoDownloadBytes(cl.Op)
				*d = &idemsrv.Download{Content: bytes.NewReader(b), ContentType: cl.DownloadType}
				s.returned = download{ContentType: cl.DownloadType, Bytes: b}
				return nil
			}
			err := fillAnswer(v, cl)
			setMediaType(v, idemsrv.MediaType(ctx), cl.Measured)
			s.returned = v.Interface()
			return err
		},
		Events: func(op string, out any) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			cl := s.calls[op]
			raw, _ := json.Marshal(cl.Events)
			err := json.Unmarshal(raw, out)
			ids := make([]string, len(cl.Events))
			for i := range ids {
				if cl.SSE {
					ids[i] = fmt.Sprint(i + 1)
				}
			}
			s.returned = streamed{Events: reflect.ValueOf(out).Elem().Interface(), IDs: ids}
			return err
		},
	}
}

// newEchoState knows the calls of the plan by client method.
func newEchoState(p plan) *echoState {
	s := &echoState{calls: map[string]call{}}
	for _, cl := range p.Calls {
		s.calls[cl.Method] = cl
		if cl.StreamMethod != "" {
			s.calls[cl.StreamMethod] = cl
		}
	}
	return s
}

// runEcho sends every Echo call to the generated server.
func runEcho(p plan, opts ...idemrt.Option) []echoResult {
	s := newEchoState(p)
	srv, err := api.NewServer(s.handler(), idemsrv.WithoutLedger())
	if err != nil {
		return []echoResult{{Op: "NewServer", Outcome: "error", Detail: err.Error()}}
	}
	// Mounted under a path of its own, as a user mounts it: a client given
	// a URL without a path would add the spec's server path (/v1).
	ts := httptest.NewServer(http.StripPrefix("/echo", srv))
	defer ts.Close()
	c, err := api.NewClient(ts.URL+"/echo", append(opts, idemrt.NoRetry())...)
	if err != nil {
		return []echoResult{{Op: "NewClient", Outcome: "error", Detail: err.Error()}}
	}
	cv := reflect.ValueOf(c)
	var out []echoResult
	for _, cl := range p.Calls {
		if cl.Echo {
			out = append(out, echoForms(s, cv, cl))
		}
	}
	return out
}

// echoForms sends one operation through each client method that calls
// it: the plain one, and its stream form when it has one.
func echoForms(s *echoState, cv reflect.Value, cl call) echoResult {
	res := echoOne(s, cv, cl)
	if res.Outcome != "equal" || cl.StreamMethod == "" {
		return res
	}
	cl.Method = cl.StreamMethod
	if res = echoOne(s, cv, cl); res.Outcome != "equal" {
		res.Detail = cl.StreamMethod + ": " + res.Detail
	}
	return res
}

func echoOne(s *echoState, cv reflect.Value, cl call) (res echoResult) {
	res.Op = cl.Op
	defer func() {
		if v := recover(); v != nil {
			res.Outcome, res.Detail = "panic", fmt.Sprint(v)
		}
	}()
	m := cv.MethodByName(cl.Method)
	args, bad := buildArgs(m, cl)
	if bad != nil {
		return echoResult{Op: cl.Op, Outcome: "build", Detail: bad.Detail}
	}
	setKey(args[1:], cl)
	s.mu.Lock()
	s.received, s.returned, s.saw = nil, nil, false
	s.mu.Unlock()
	out := m.Call(args)
	if err := out[len(out)-1]; !err.IsNil() {
		return echoResult{Op: cl.Op, Outcome: "error", Detail: fmt.Sprint(err.Interface())}
	}
	decoded, err := readDecoded(out)
	if err != nil {
		return echoResult{Op: cl.Op, Outcome: "error", Detail: err.Error()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.saw {
		return echoResult{Op: cl.Op, Outcome: "error", Detail: "the handler did not run"}
	}
	if d := diffReceived(sentArgs(args[1:], cl), s.received, cl); d != "" {
		return echoResult{Op: cl.Op, Outcome: "mismatch", Detail: d}
	}
	if len(out) == 2 {
		copyMeasured(reflect.ValueOf(s.returned), decoded, cl.Measured)
		if d := (differ{}).diff("returned", reflect.ValueOf(s.returned), decoded); d != "" {
			return echoResult{Op: cl.Op, Outcome: "mismatch", Detail: d}
		}
	}
	return echoResult{Op: cl.Op, Outcome: "equal"}
}

// setKey sets the idempotency key field of the params, which the echo
// call fills in itself so that the params can be compared whole.
func setKey(args []reflect.Value, cl call) {
	for _, a := range args {
		if cl.Key != "" && a.Kind() == reflect.Struct {
			if f := a.FieldByName(cl.Key); f.IsValid() && f.Kind() == reflect.String {
				f.SetString("echo-key-" + cl.Op)
			}
		}
	}
}

// sentArgs are the arguments the caller passed, as the handler should see
// them: a reader body as its bytes, and the file sent without a
// Content-Type with the one the client sends for it (bareTypes).
func sentArgs(args []reflect.Value, cl call) []any {
	var sent []any
	for _, a := range args {
		if a.Type() == readerType {
			sent = append(sent, cl.Raw)
			continue
		}
		bareTypes(a, cl)
		v := a.Interface()
		if cl.Method == cl.StreamMethod && !strings.HasSuffix(a.Type().Name(), "Params") {
			v = streamMember(v)
		}
		sent = append(sent, v)
	}
	return sent
}

// streamMember is the body an <Op>Stream method sends: the caller's with
// its "stream" member true (idemrt.WithJSONField), decoded as the server
// decodes it.
func streamMember(v any) any {
	var obj map[string]json.RawMessage
	raw, err := json.Marshal(v)
	if err != nil || json.Unmarshal(raw, &obj) != nil || obj == nil {
		return v
	}
	obj["stream"] = json.RawMessage("true")
	raw, _ = json.Marshal(obj)
	p := reflect.New(reflect.TypeOf(v))
	if json.Unmarshal(raw, p.Interface()) != nil {
		return v
	}
	return p.Elem().Interface()
}

// diffReceived compares the arguments the caller passed with the ones the
// handler received.
func diffReceived(sent, received []any, cl call) string {
	if len(received) != len(sent) {
		return fmt.Sprintf("received %d arguments, sent %d", len(received), len(sent))
	}
	for i := range sent {
		// Parameters and form bodies are pairs: an empty object has none.
		d := differ{emptyAbsent: cl.Form || strings.HasSuffix(reflect.TypeOf(sent[i]).Name(), "Params")}
		if d := d.diff(fmt.Sprintf("received[%d]", i), reflect.ValueOf(sent[i]), reflect.ValueOf(received[i])); d != "" {
			return d
		}
	}
	return ""
}

// copyMeasured gives the handler's result the decoded values of the
// header fields the HTTP layer sets (Content-Length), which it cannot send.
func copyMeasured(returned, decoded reflect.Value, names []string) {
	if returned.Kind() != reflect.Pointer || returned.IsNil() || decoded.Kind() != reflect.Pointer || decoded.IsNil() {
		return
	}
	for _, name := range names {
		if f, g := returned.Elem().FieldByName(name), decoded.Elem().FieldByName(name); f.CanSet() && g.IsValid() {
			f.Set(g)
		}
	}
}

// setRaw fills a text or bytes body from the encoded body.
func setRaw(v reflect.Value, raw []byte) bool {
	switch {
	case raw == nil:
		return false
	case v.Kind() == reflect.String:
		v.SetString(string(raw))
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		v.SetBytes(raw)
	default:
		return false
	}
	return true
}

// fillAnswer builds the handler's answer: an <Op>Result gets the status,
// the body in Body and the headers by field name; anything else is the
// body itself.
func fillAnswer(v reflect.Value, cl call) error {
	if v.Kind() == reflect.Pointer {
		v.Set(reflect.New(v.Type().Elem()))
		v = v.Elem()
	}
	var sc reflect.StructField
	wrapped := false
	if v.Kind() == reflect.Struct {
		sc, wrapped = v.Type().FieldByName("StatusCode")
	}
	if !wrapped || sc.Tag != "" {
		if setRaw(v, cl.ResultRaw) || len(cl.Result) == 0 {
			return nil
		}
		return json.Unmarshal(cl.Result, v.Addr().Interface())
	}
	v.FieldByName("StatusCode").SetInt(int64(cl.Status))
	if b := v.FieldByName("Body"); b.IsValid() && !setRaw(b, cl.ResultRaw) && len(cl.Result) > 0 {
		if err := json.Unmarshal(cl.Result, b.Addr().Interface()); err != nil {
			return fmt.Errorf("Body: %v", err)
		}
	}
	for name, raw := range cl.Headers {
		if f := v.FieldByName(name); f.IsValid() && f.CanSet() {
			if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
		}
	}
	return nil
}
`

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
//   - an io.Reader argument is compared by the bytes read from it;
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
	"time"

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

// runEcho sends every Echo call to the generated server.
func runEcho(p plan, opts ...idemrt.Option) []echoResult {
	s := &echoState{calls: map[string]call{}}
	for _, cl := range p.Calls {
		s.calls[cl.Method] = cl
		if cl.StreamMethod != "" {
			s.calls[cl.StreamMethod] = cl
		}
	}
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

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage(nil))
)

// differ compares under the normalizations of the file's comment;
// emptyAbsent adds the one of parameters and form bodies.
type differ struct{ emptyAbsent bool }

// diff is the path of the first difference between a and b ("" when they
// agree).
func (df differ) diff(path string, a, b reflect.Value) string {
	if df.emptyAbsent && empty(a) && empty(b) {
		return ""
	}
	if !a.IsValid() || !b.IsValid() {
		if a.IsValid() != b.IsValid() {
			return path + ": one side is missing"
		}
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: sent a %s, got a %s", path, a.Type(), b.Type())
	}
	switch {
	case a.Type() == timeType && a.CanInterface():
		if !a.Interface().(time.Time).Equal(b.Interface().(time.Time)) {
			return fmt.Sprintf("%s: sent %v, got %v", path, a.Interface(), b.Interface())
		}
		return ""
	case a.Type() == readerType:
		if x, y := readAgain(a), readAgain(b); !bytes.Equal(x, y) {
			return fmt.Sprintf("%s: sent %q, got %q", path, x, y)
		}
		return ""
	case a.Type() == rawType && a.Len() > 0 && b.Len() > 0:
		var x, y any
		if json.Unmarshal(a.Bytes(), &x) == nil && json.Unmarshal(b.Bytes(), &y) == nil && reflect.DeepEqual(x, y) {
			return ""
		}
		return fmt.Sprintf("%s: sent %s, got %s", path, a.Bytes(), b.Bytes())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: sent %s, got %s", path, show(a), show(b))
			}
			return ""
		}
		return df.diff(path, a.Elem(), b.Elem())
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: sent %d items %s, got %d %s", path, a.Len(), show(a), b.Len(), show(b))
		}
		for i := range a.Len() {
			if d := df.diff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() && !df.emptyAbsent {
			return fmt.Sprintf("%s: sent %d entries %s, got %d %s", path, a.Len(), show(a), b.Len(), show(b))
		}
		for _, k := range append(a.MapKeys(), b.MapKeys()...) {
			if d := df.diff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k)); d != "" {
				return d
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if d := df.diff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
	default:
		return diffScalar(path, a, b)
	}
	return ""
}

// empty reports whether v has no pair on a form's or a query's wire: no
// value, an object of empty members, a list of empty items.
func empty(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	if v.Type() == rawType {
		s := strings.TrimSpace(string(v.Bytes()))
		return s == "" || s == "{}" || s == "[]" || s == "null"
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || empty(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !empty(v.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if !empty(v.MapIndex(k)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range v.NumField() {
			if !empty(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}

func diffScalar(path string, a, b reflect.Value) string {
	var same bool
	switch a.Kind() {
	case reflect.Bool:
		same = a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		same = a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		same = a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		same = a.Float() == b.Float()
	case reflect.String:
		same = a.String() == b.String()
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		same = a.Pointer() == b.Pointer()
	default:
		same = a.Kind() == b.Kind()
	}
	if same {
		return ""
	}
	return fmt.Sprintf("%s: sent %s, got %s", path, show(a), show(b))
}

// show prints a value for a report, bounded.
func show(v reflect.Value) string {
	s := fmt.Sprintf("%v", v)
	if v.CanInterface() {
		if b, err := json.Marshal(v.Interface()); err == nil {
			s = string(b)
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
`

package idemsrv

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"time"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/runtime/wire"
)

// WriteJSON answers status with v as the JSON body.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	writeJSONAs(w, status, "application/json", v)
}

// writeJSONAs answers status with v as a JSON body of contentType, encoded
// by the runtime's codec as the generated client encodes: a model's unknown
// members are written after its declared ones.
func writeJSONAs(w http.ResponseWriter, status int, contentType string, v any) {
	b, err := wire.Marshal(v)
	if err != nil {
		writeInternal(w)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// WriteText answers status with v, a string or []byte (or a pointer to
// one; nil sends an empty body), as a body of contentType.
func WriteText(w http.ResponseWriter, status int, contentType string, v any) {
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x)
	case []byte:
		b = x
	case *string:
		if x != nil {
			b = []byte(*x)
		}
	case *[]byte:
		if x != nil {
			b = *x
		}
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// ErrNilResult is what a handler's nil result (with a nil error) is
// answered as: a 500, since the client would have nothing to decode.
var ErrNilResult = errors.New("idemsrv: the handler returned neither a result nor an error")

// Status is the status to answer: the handler's, or def when it left it 0.
func Status(status, def int) int {
	if status == 0 {
		return def
	}
	return status
}

// WriteEmpty answers status with no body.
func WriteEmpty(w http.ResponseWriter, status int) {
	w.WriteHeader(status)
}

// SetHeader sets the response header name to v, a result field: strings,
// numbers, booleans and enums as text, times as RFC 3339. A zero value is
// not sent (the client reads an absent header as the zero value).
func SetHeader(w http.ResponseWriter, name string, v any) {
	var s string
	switch x := v.(type) {
	case time.Time:
		if x.IsZero() {
			return
		}
		s = x.Format(time.RFC3339Nano)
	default:
		rv := reflect.ValueOf(v)
		if !rv.IsValid() || rv.IsZero() {
			return
		}
		s = fmt.Sprint(v)
	}
	w.Header().Set(name, s)
}

// WriteError answers the error a handler returned. A *idemrt.StatusError
// whose StatusCode the operation declares (or 412 when the operation has a
// precondition) is sent as that status with Model as the JSON body and
// with its Header; anything else is a 500 problem that says nothing of the
// error, which may hold internal detail: OnError receives it.
func (e *Engine) WriteError(w http.ResponseWriter, r *http.Request, rt *Route, err error) {
	var se *idemrt.StatusError
	if errors.As(err, &se) && rt.declares(se.StatusCode) {
		for k, v := range se.Header {
			w.Header()[k] = v
		}
		if se.Model == nil {
			problem.Write(w, se.StatusCode, "about:blank", "")
			return
		}
		writeJSONAs(w, se.StatusCode, rt.errorMediaType(se.StatusCode), se.Model)
		return
	}
	if e.cfg.onError != nil {
		e.cfg.onError(r, err)
	}
	writeInternal(w)
}

// errorMediaType is the media type the operation declares for an error
// answer of status: the exact status's, its class's, the default
// response's, else application/json.
func (rt *Route) errorMediaType(status int) string {
	for _, k := range []int{status, status / 100, 0} {
		if t, ok := rt.ErrorMediaTypes[k]; ok {
			return t
		}
	}
	return "application/json"
}

// declares reports whether a handler may answer status.
func (rt *Route) declares(status int) bool {
	switch {
	case status < 400 || status > 599:
		return false
	case rt.Default || rt.Declared.Contains(status):
		return true
	}
	return status == http.StatusPreconditionFailed && len(rt.Preconditions) > 0
}

func writeInternal(w http.ResponseWriter) {
	problem.Write(w, http.StatusInternalServerError, problem.Internal, "the server failed to handle the request")
}

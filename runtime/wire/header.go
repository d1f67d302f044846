package wire

import (
	"encoding"
	"net/http"
	"reflect"
	"strconv"
	"time"
)

// HeaderInto parses the response header name into *dst, which points at a
// string, integer, float, bool or encoding.TextUnmarshaler (time.Time takes
// RFC 3339 or an HTTP-date). A missing or unparsable header leaves *dst
// unchanged: headers are informational and never fail a call that succeeded.
func HeaderInto(h http.Header, name string, dst any) {
	v := h.Get(name)
	if v == "" {
		return
	}
	if t, ok := dst.(*time.Time); ok {
		if p, err := time.Parse(time.RFC3339, v); err == nil {
			*t = p
		} else if p, err := http.ParseTime(v); err == nil {
			*t = p
		}
		return
	}
	if u, ok := dst.(encoding.TextUnmarshaler); ok {
		_ = u.UnmarshalText([]byte(v))
		return
	}
	setScalar(reflect.ValueOf(dst).Elem(), v)
}

// setScalar parses s into a settable value of a basic kind; a parse failure
// leaves the value unchanged.
func setScalar(rv reflect.Value, s string) {
	switch rv.Kind() {
	case reflect.String:
		rv.SetString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, err := strconv.ParseInt(s, 10, rv.Type().Bits()); err == nil {
			rv.SetInt(n)
		}
	case reflect.Float32, reflect.Float64:
		if f, err := strconv.ParseFloat(s, rv.Type().Bits()); err == nil {
			rv.SetFloat(f)
		}
	case reflect.Bool:
		if b, err := strconv.ParseBool(s); err == nil {
			rv.SetBool(b)
		}
	}
}

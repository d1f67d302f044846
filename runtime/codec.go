package runtime

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// EncodeJSON marshals a JSON request body once, before the first attempt.
func EncodeJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding JSON body: %w", err)
	}
	return b, nil
}

// ReadBody reads an io.Reader body once, up front, so that every attempt
// sends the same bytes. A nil reader is an empty body.
func ReadBody(r io.Reader) ([]byte, error) {
	if r == nil {
		return []byte{}, nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading request body: %w", err)
	}
	if c, ok := r.(io.Closer); ok {
		_ = c.Close()
	}
	return b, nil
}

// readBody reads a success response's whole body and closes it. A body read
// to its end has nothing left to drain, so it is closed directly; after a
// read error the rest is drained (bounded) so the connection may be reused.
func readBody(resp *http.Response) ([]byte, error) {
	if rb, ok := resp.Body.(*respBody); ok {
		// Read whole by the engine: no copy.
		return rb.rest(), nil
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		discard(resp, time.Second)
		return nil, fmt.Errorf("reading %d response: %w", resp.StatusCode, err)
	}
	_ = resp.Body.Close()
	return b, nil
}

// IsJSON reports whether a media type is JSON: application/json or any
// type with a +json suffix. Parameters (charset) are ignored.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(contentType))
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// DecodeJSON decodes a success response's JSON body into dst, then drains
// and closes the body. An empty body leaves dst untouched.
func DecodeJSON(resp *http.Response, dst any) error {
	b, err := readBody(resp)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return decodeError(resp, fmt.Errorf("decoding %d response (%s): %w", resp.StatusCode, resp.Header.Get("Content-Type"), err))
	}
	return nil
}

// DecodeBytes returns a success response's body as bytes and closes it.
func DecodeBytes(resp *http.Response) ([]byte, error) {
	return readBody(resp)
}

// DecodeText returns a success response's body as a string and closes it.
func DecodeText(resp *http.Response) (string, error) {
	b, err := DecodeBytes(resp)
	return string(b), err
}

// Discard drains (bounded) and closes the body of a success response that
// declares no content.
func Discard(resp *http.Response) {
	discard(resp, time.Second)
}

// ErrorModel decodes the body of a *StatusError in err into the model that
// newModel returns for its status (nil: none declared) and stores it in
// StatusError.Model. The model is set only when the body is JSON that
// decodes; the error is returned unchanged otherwise, so a garbled error body
// never hides the status.
func ErrorModel(err error, newModel func(status int) any) error {
	var se *StatusError
	if !errors.As(err, &se) || se.Model != nil || len(se.Body) == 0 {
		return err
	}
	m := newModel(se.StatusCode)
	if m == nil {
		return err
	}
	if ct := se.Header.Get("Content-Type"); ct != "" && !IsJSON(ct) {
		return err
	}
	if json.Unmarshal(se.Body, m) == nil {
		se.Model = m
	}
	return err
}

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

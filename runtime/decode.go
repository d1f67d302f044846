package runtime

import (
	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"time"
)

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

// DecodeJSON decodes a success response's JSON body into dst, then drains
// and closes the body. An empty body leaves dst untouched. A body that is
// not JSON but comes with a text/* Content-Type is taken as the text when
// dst holds a string (a string schema answered as text/javascript, say).
func DecodeJSON(resp *http.Response, dst any) error {
	b, err := readBody(resp)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		taken(resp)
		return nil
	}
	if err := jsoncodec.Unmarshal(b, dst); err != nil && !textInto(resp, b, dst) {
		return decodeError(resp, fmt.Errorf("decoding %d response (%s): %w", resp.StatusCode, resp.Header.Get("Content-Type"), err))
	}
	taken(resp)
	return nil
}

// textInto stores b in dst when the answer is text/* and dst points at a
// string (of a named string type included), or at a nil pointer to one:
// the document declared a JSON string, the server sent the text itself, and
// the intent is not in doubt. It reports whether it did.
func textInto(resp *http.Response, b []byte, dst any) bool {
	if !strings.HasPrefix(mediaType(resp.Header.Get("Content-Type")), "text/") {
		return false
	}
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	v = v.Elem()
	if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.String {
		// An optional string (*T): allocate the T the text goes in.
		p := reflect.New(v.Type().Elem())
		p.Elem().SetString(string(b))
		v.Set(p)
		return true
	}
	if v.Kind() != reflect.String {
		return false
	}
	v.SetString(string(b))
	return true
}

// taken ends the call whose body resp is, if the engine read it: the
// caller has its result.
func taken(resp *http.Response) {
	if rb, ok := resp.Body.(*respBody); ok {
		rb.end(nil)
	}
}

// DecodeBytes returns a success response's body as bytes and closes it.
func DecodeBytes(resp *http.Response) ([]byte, error) {
	b, err := readBody(resp)
	if err == nil {
		taken(resp)
	}
	return b, err
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
	if ct := se.Header.Get("Content-Type"); ct != "" && !shared.IsJSON(ct) {
		return err
	}
	if jsoncodec.Unmarshal(se.Body, m) == nil {
		se.Model = m
	}
	return err
}

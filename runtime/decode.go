package runtime

import (
	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
	"github.com/idemgen/idemgen/runtime/internal/shared"

	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
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
// and closes the body. An empty body leaves dst untouched.
func DecodeJSON(resp *http.Response, dst any) error {
	b, err := readBody(resp)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		taken(resp)
		return nil
	}
	if err := jsoncodec.Unmarshal(b, dst); err != nil {
		return decodeError(resp, fmt.Errorf("decoding %d response (%s): %w", resp.StatusCode, resp.Header.Get("Content-Type"), err))
	}
	taken(resp)
	return nil
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

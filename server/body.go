package idemsrv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/ledger"
	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/problem"
	"github.com/idemgen/idemgen/runtime/wire"
)

// readBody reads the whole body within the size bound and the time bound;
// ok is false when it failed (the failure is kept). Empty is nil.
func (d *Request) readBody() ([]byte, bool) {
	if d.err != nil || d.r.Body == nil {
		return nil, d.err == nil
	}
	// The read deadline was set when the request was routed (Handle), so
	// that it also bounds the ledger's read of a keyed body.
	b, err := io.ReadAll(http.MaxBytesReader(d.w, d.r.Body, d.e.cfg.maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		d.fail(http.StatusRequestEntityTooLarge, problem.BodyTooLarge, fmt.Errorf("the body is larger than %d bytes", d.e.cfg.maxBody))
		return nil, false
	case ledger.IsTimeout(err):
		d.fail(http.StatusRequestTimeout, problem.BodyTimeout, fmt.Errorf("the body did not arrive within %v", d.e.cfg.bodyTimeout))
		return nil, false
	case err != nil:
		d.fail(http.StatusBadRequest, problem.BadRequest, errors.New("the body broke off"))
		return nil, false
	}
	return b, true
}

// JSON decodes a JSON body into dst. A body that is empty is an error when
// required, and leaves dst as it is otherwise. The body is bounded in size
// (WithMaxBody), in reading time and in nesting depth (WithBodyLimits).
func (d *Request) JSON(dst any, required bool) {
	b, ok := d.readBody()
	if !ok || !d.present(b, required) {
		return
	}
	if ct := d.r.Header.Get("Content-Type"); ct != "" && !isJSON(ct) {
		d.fail(http.StatusUnsupportedMediaType, problem.UnsupportedMedia, fmt.Errorf("the body must be JSON, not %q", ct))
		return
	}
	if err := checkDepth(b, d.e.cfg.maxDepth); err != nil {
		d.fail(http.StatusBadRequest, problem.BadRequest, err)
		return
	}
	if err := d.e.unmarshal(b, dst); err != nil {
		d.fail(http.StatusBadRequest, problem.BadRequest, err)
	}
}

// Text reads a text body into dst, a *string or a **string.
func (d *Request) Text(dst any, required bool) {
	b, ok := d.readBody()
	if !ok || !d.present(b, required) {
		return
	}
	switch p := dst.(type) {
	case *string:
		*p = string(b)
	case **string:
		s := string(b)
		*p = &s
	}
}

// Bytes hands the body, read within the size bound, to dst as a reader.
func (d *Request) Bytes(dst *io.Reader, required bool) {
	b, ok := d.readBody()
	if !ok || !d.present(b, required) {
		return
	}
	*dst = bytes.NewReader(b)
}

// present reports whether the body has content, failing the request when
// it has none and needed some.
func (d *Request) present(b []byte, required bool) bool {
	if len(b) > 0 {
		return true
	}
	if required {
		d.fail(http.StatusBadRequest, problem.BadRequest, errors.New("the request body is required"))
	}
	return false
}

// unmarshal decodes JSON, naming where it failed without quoting the body.
// It decodes with the runtime's codec, as the generated client does: the
// models keep the members their schema does not declare, and it is several
// times faster than encoding/json; its errors are encoding/json's.
func (e *Engine) unmarshal(b []byte, dst any) error {
	err := wire.Unmarshal(b, dst)
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, wire.ErrTooDeep):
		return fmt.Errorf("the JSON body is nested deeper than %d levels", idemrt.MaxJSONDepth)
	case errors.As(err, &typeErr):
		return fmt.Errorf("the JSON value at %q is a %s where the schema wants %s", typeErr.Field, typeErr.Value, typeErr.Type)
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("the body is not valid JSON (at byte %d)", syntaxErr.Offset)
	}
	return errors.New("the JSON body does not match the schema")
}

// isJSON reports whether a Content-Type is JSON (application/json or +json).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// checkDepth refuses JSON nested deeper than limit, before any decoder
// recurses into it.
func checkDepth(b []byte, limit int) error {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > limit {
				return fmt.Errorf("the JSON body is nested deeper than %d levels", limit)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

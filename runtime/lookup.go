package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/internal/jsoncodec"
)

// ErrLookupAnswer is matched by the error of a lookup whose answer does not
// have the shape the API document declares: a body that is not JSON, a
// scalar where the found pointer goes on into an object or an array, or a
// found value that does not decode as the operation's result. It never
// means "not found": a reconciler must not conclude that an intent was not
// executed from an answer it cannot read.
var ErrLookupAnswer = errors.New("idemrt: the lookup's answer does not have the declared shape")

// Lookup runs the request of an operation's x-lookup, built by a generated
// client, under the lookup operation's retry contract, and reads whether it
// found the intent's result. A 404 is not found. With found, an RFC 6901
// pointer, a 2xx is found when the pointer leads to a present, non-null
// value, which becomes the result's Body; a member or an array element
// that is not there, or null, is not found. Without it, every 2xx is found
// and Body is the whole answer. Any other status, a call that fails, and
// an answer of the wrong shape (ErrLookupAnswer) are errors.
func Lookup(ctx context.Context, r *Runner, op *Operation, req *Request, found string, opts ...CallOption) (LookupResult, error) {
	resp, err := r.Do(ctx, op, req, opts...)
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusNotFound && se.Reason == nil {
			return LookupResult{Status: se.StatusCode}, nil
		}
		return LookupResult{}, err
	}
	body, err := DecodeBytes(resp)
	if err != nil {
		return LookupResult{}, err
	}
	res := LookupResult{Status: resp.StatusCode}
	if resp.StatusCode/100 != 2 {
		return res, fmt.Errorf("%w: %s answered %d, neither a 2xx nor a 404", ErrLookupAnswer, op.ID, resp.StatusCode)
	}
	if found == "" {
		res.Found, res.Body = true, body
		return res, nil
	}
	v, err := foundValue(body, found)
	if err != nil {
		return res, fmt.Errorf("%w: the %d answer of %s has no value at %q: %w", ErrLookupAnswer, resp.StatusCode, op.ID, found, err)
	}
	res.Found, res.Body = v != nil, v
	return res, nil
}

// foundValue walks ptr through the JSON document body and returns the
// value there as written; nil when a member or an element on the way is
// absent, or the value there is null.
func foundValue(body []byte, ptr string) (json.RawMessage, error) {
	cur := json.RawMessage(bytes.TrimSpace(body))
	if !json.Valid(cur) {
		return nil, errors.New("the answer is not JSON")
	}
	at := "the answer"
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		next, err := pointerStep(cur, tok)
		if err != nil || next == nil {
			if err != nil {
				err = fmt.Errorf("%s holds %w", at, err)
			}
			return nil, err
		}
		at = strings.TrimPrefix(at, "the answer") + "/" + tok
		cur = next
	}
	if string(cur) == "null" {
		return nil, nil
	}
	return cur, nil
}

// pointerStep takes one pointer token into a JSON value: a member of an object,
// an element of an array. nil, nil is an absent member or element, and a
// null on the way.
func pointerStep(v json.RawMessage, tok string) (json.RawMessage, error) {
	switch v[0] {
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, err
		}
		return bytes.TrimSpace(m[tok]), nil
	case '[':
		var a []json.RawMessage
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, err
		}
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || (len(tok) > 1 && tok[0] == '0') {
			return nil, fmt.Errorf("an array, which has no element %q", tok)
		}
		if i >= len(a) {
			return nil, nil
		}
		return bytes.TrimSpace(a[i]), nil
	case 'n':
		return nil, nil
	}
	return nil, fmt.Errorf("the scalar %.40s, which has no member %q", v, tok)
}

// DecodeFound decodes what op's x-lookup found into dst, the result of
// the operation the lookup is for. An empty body (a found answer without
// one) leaves dst untouched; a value that does not decode is an error
// matching ErrLookupAnswer.
func DecodeFound(op *Operation, res LookupResult, dst any) error {
	if len(bytes.TrimSpace(res.Body)) == 0 {
		return nil
	}
	if err := jsoncodec.Unmarshal(res.Body, dst); err != nil {
		return fmt.Errorf("%w: what %s found (its %d answer) does not decode as the operation's result: %w", ErrLookupAnswer, op.ID, res.Status, err)
	}
	return nil
}

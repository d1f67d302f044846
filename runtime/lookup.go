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

// LookupQuery is what an operation's x-lookup asks for and where its
// answer holds it: the intent's key (or client reference), the found
// pointer to the result, and the match pointer into the result to where
// it carries the key.
type LookupQuery struct {
	// Key is the intent's key or client reference the lookup is sent with.
	Key string
	// Found is an RFC 6901 pointer into the answer to the result ("/data/0");
	// "" means the whole answer.
	Found string
	// Match is an RFC 6901 pointer into the result to the member that holds
	// Key ("/reference"); "" checks nothing.
	Match string
}

// Lookup runs the request of an operation's x-lookup, built by a generated
// client, under the lookup operation's retry contract, and reads whether it
// found the intent's result. A query whose Key is "" is refused before
// anything is sent (ErrEmptyLookupKey). A 404 is not found. With Found, a
// 2xx is found when the pointer leads to a present, non-null value, which
// becomes the result's Body; a member or an array element that is not
// there, or null, is not found. Without it, every 2xx is found and Body is
// the whole answer. With Match, the result must also hold Key at Match (a
// string equal to it, or a number or boolean written as it): one that does
// not is another intent's, and is not found; when Found's last step is an
// index into an array ("/data/0"), the result is the first element of that
// array that holds Key. Any other status, a call that fails, and an answer
// of the wrong shape (ErrLookupAnswer) are errors.
func Lookup(ctx context.Context, r *Runner, op *Operation, req *Request, q LookupQuery, opts ...CallOption) (LookupResult, error) {
	if q.Key == "" {
		return LookupResult{}, &CallError{Operation: op.ID, Err: fmt.Errorf("%w: a lookup for the key \"\" finds no intent, and would not be sent", ErrEmptyLookupKey)}
	}
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
	if q.Found == "" && q.Match == "" {
		res.Found, res.Body = true, body
		return res, nil
	}
	v, err := foundResult(body, q)
	if err != nil {
		return res, fmt.Errorf("%w: the %d answer of %s has no value at %q%s: %w", ErrLookupAnswer, resp.StatusCode, op.ID, q.Found, matchText(q.Match), err)
	}
	res.Found, res.Body = v != nil, v
	return res, nil
}

// foundResult is the result a JSON answer holds under q: the value at
// q.Found that holds q.Key at q.Match (for Found ending in an array index,
// the first element of that array that does); nil when there is none.
func foundResult(body []byte, q LookupQuery) (json.RawMessage, error) {
	if q.Match == "" {
		return foundValue(body, q.Found)
	}
	list, isList, err := foundList(body, q.Found)
	if err != nil {
		return nil, err
	}
	if !isList {
		v, err := foundValue(body, q.Found)
		if err != nil || v == nil {
			return nil, err
		}
		list = []json.RawMessage{v}
	}
	for _, v := range list {
		ok, err := holdsKey(v, q)
		if err != nil {
			return nil, err
		}
		if ok {
			return v, nil
		}
	}
	return nil, nil
}

// matchText names match in an error, when there is one.
func matchText(match string) string {
	if match == "" {
		return ""
	}
	return fmt.Sprintf(" with a key at %q", match)
}

// foundList reads the array whose element found points at ("/data/0" ->
// the array at /data): isList is false when found does not end in an index
// into an array. Null elements are left out, and an absent array is empty.
func foundList(body []byte, found string) (list []json.RawMessage, isList bool, err error) {
	i := strings.LastIndexByte(found, '/')
	if i < 0 || !indexToken(found[i+1:]) {
		return nil, false, nil
	}
	arr, err := foundValue(body, found[:i])
	if err != nil || arr == nil {
		return nil, err == nil, err
	}
	if arr[0] != '[' {
		return nil, false, nil
	}
	var all []json.RawMessage
	if err := json.Unmarshal(arr, &all); err != nil {
		return nil, false, err
	}
	for _, v := range all {
		if v = bytes.TrimSpace(v); string(v) != "null" {
			list = append(list, v)
		}
	}
	return list, true, nil
}

// indexToken reports whether tok is an RFC 6901 array index: decimal,
// without leading zeros.
func indexToken(tok string) bool {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return false
		}
	}
	_, err := strconv.Atoi(tok)
	return err == nil
}

// holdsKey reports whether the found value v holds q.Key at q.Match: a
// string equal to it, or a number or boolean written as it. Absent or null
// there is false; a scalar where the pointer goes on is an error.
func holdsKey(v json.RawMessage, q LookupQuery) (bool, error) {
	at, err := walkPointer(v, q.Match, "the found value")
	if err != nil || at == nil {
		return false, err
	}
	switch at[0] {
	case '"':
		var s string
		return json.Unmarshal(at, &s) == nil && s == q.Key, nil
	case '{', '[':
		return false, nil
	}
	return string(at) == q.Key, nil
}

// foundValue walks ptr through the JSON document body and returns the
// value there as written ("" is the whole document); nil when a member or
// an element on the way is absent, or the value there is null.
func foundValue(body []byte, ptr string) (json.RawMessage, error) {
	return walkPointer(body, ptr, "the answer")
}

// walkPointer is foundValue of doc, which errors name as what.
func walkPointer(doc []byte, ptr, what string) (json.RawMessage, error) {
	cur := json.RawMessage(bytes.TrimSpace(doc))
	if !json.Valid(cur) {
		return nil, fmt.Errorf("%s is not JSON", what)
	}
	at := what
	for _, tok := range jsonTokens(ptr) {
		next, err := pointerStep(cur, tok)
		if err != nil || next == nil {
			if err != nil {
				err = fmt.Errorf("%s holds %w", at, err)
			}
			return nil, err
		}
		at = strings.TrimPrefix(at, what) + "/" + tok
		cur = next
	}
	if string(cur) == "null" {
		return nil, nil
	}
	return cur, nil
}

// jsonTokens splits an RFC 6901 pointer into its unescaped tokens; none
// for "".
func jsonTokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, tok := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
	}
	return toks
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
		if !indexToken(tok) {
			return nil, fmt.Errorf("an array, which has no element %q", tok)
		}
		i, _ := strconv.Atoi(tok)
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

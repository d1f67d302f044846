package idemsrv

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// WithStreamSwitch returns a copy of rt, a stream form made with
// WithStream, on which a JSON request body whose top-level member is true
// asks for the stream whatever its Accept says: OpenAI's API streams on
// "stream": true, and its SDKs send Accept: application/json either way.
func (rt Route) WithStreamSwitch(member string) Route {
	f := *rt.Stream
	f.Switch = member
	rt.Stream = &f
	return rt
}

// switchedOn reports whether r's JSON body sets member to true. It reads
// the body within the size and time bounds the decoder applies, then puts
// what it read back in front of the rest, so the decoder sees the whole
// body and refuses it as it would have (too big, too slow, too deep).
func (e *Engine) switchedOn(w http.ResponseWriter, r *http.Request, member string) bool {
	if member == "" || r.Body == nil || r.Body == http.NoBody {
		return false
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSON(ct) {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, e.cfg.maxBody+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil || int64(len(b)) > e.cfg.maxBody || checkDepth(b, e.cfg.maxDepth) != nil {
		return false
	}
	return topLevelTrue(b, member)
}

// topLevelTrue reports whether the JSON object b has member set to true;
// of repeated members the last counts, as it does when the body is
// decoded for the handler.
func topLevelTrue(b []byte, member string) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	on := false
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return false
		}
		if key == member {
			on = bytes.Equal(v, []byte("true"))
		}
	}
	// A body cut short is refused by the decoder: it asks for nothing.
	t, err := dec.Token()
	return on && err == nil && t == json.Delim('}')
}

package sqlstore

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// TestHeaderColumnMatchesEncodingJSON: the hand-written header column is
// json.Marshal's bytes, and reads back as json.Unmarshal reads them, so rows
// of either path replay alike.
func TestHeaderColumnMatchesEncodingJSON(t *testing.T) {
	for _, h := range []http.Header{
		nil, {}, {"Content-Type": {"application/json"}, "Location": {"/orders/1"}},
		{"Etag": {`"v1"`}}, {"X-A": {"<b>&"}}, {"X-E": {}}, {"X-N": nil}, {"X-U": {"é", "a,b"}},
		{"B": {"1", "2"}, "A": {""}, "C": {"x"}},
	} {
		got, err := encodeHeader(h)
		want, _ := json.Marshal(h)
		if err != nil || got != string(want) {
			t.Fatalf("encodeHeader(%v) = %s, %v; json.Marshal gives %s", h, got, err, want)
		}
		back, err := decodeHeader(got)
		ref := http.Header{}
		json.Unmarshal([]byte(got), &ref)
		if err != nil || !reflect.DeepEqual(back, ref) {
			t.Fatalf("decodeHeader(%s) = %#v, %v; json.Unmarshal gives %#v", got, back, err, ref)
		}
	}
	for _, bad := range []string{`{"A":["x",]}`, `{"A":["x"],}`, `{"A":"x"}`, `{`} {
		if _, err := decodeHeader(bad); err == nil {
			t.Errorf("decodeHeader(%s) accepted it", bad)
		}
	}
}

package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodeMedia: the Content-Type picks the target; wildcards match
// declared byte types; anything else is ErrUnexpectedContentType.
func TestDecodeMedia(t *testing.T) {
	var model map[string]int
	var text string
	var raw []byte
	m := Media{JSON: &model, Text: &text, Bytes: &raw, Types: []string{"application/json", "text/plain", "image/*"}}
	if mt, err := DecodeMedia(newResp(200, "application/problem+json", `{"a":1}`), m); err != nil || mt != "application/problem+json" || model["a"] != 1 {
		t.Fatalf("json: %q %v %v", mt, model, err)
	}
	if mt, err := DecodeMedia(newResp(200, "Text/Plain; charset=utf-8", "hi"), m); err != nil || mt != "text/plain" || text != "hi" {
		t.Fatalf("text: %q %q %v", mt, text, err)
	}
	if mt, err := DecodeMedia(newResp(200, "image/webp", "RIFF"), m); err != nil || mt != "image/webp" || string(raw) != "RIFF" {
		t.Fatalf("bytes: %q %q %v", mt, raw, err)
	}
	_, err := DecodeMedia(newResp(201, "application/xml", "<a/>"), m)
	if !errors.Is(err, ErrUnexpectedContentType) || !strings.Contains(err.Error(), `201 response is "application/xml"`) {
		t.Fatalf("undeclared: %v", err)
	}
	noBytes := Media{JSON: &model, Types: []string{"application/json"}}
	if _, err := DecodeMedia(newResp(200, "text/plain", "x"), noBytes); !errors.Is(err, ErrUnexpectedContentType) {
		t.Fatalf("text without a text target: %v", err)
	}
}

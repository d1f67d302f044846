package idemsrv

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
	"github.com/idemgen/idemgen/runtime/wire"
)

type upMeta struct {
	Title string `json:"title"`
	Pages int32  `json:"pages"`
}

type upload struct {
	File    idemrt.File `json:"file"`
	Avatar  idemrt.File `json:"avatar"`
	Caption *string     `json:"caption,omitempty"`
	Count   int64       `json:"count"`
	Labels  []string    `json:"labels,omitempty"`
	Meta    *upMeta     `json:"metadata,omitempty"`
	Link    *upMeta     `json:"link,omitempty"`
	Expand  []string    `json:"expand,omitempty"`

	AdditionalProperties map[string]string `json:"-"`
}

func (u upload) MarshalJSON() ([]byte, error) {
	type plain upload
	return wire.MarshalExtra(plain(u), u.AdditionalProperties)
}

func (u *upload) UnmarshalJSON(b []byte) error {
	type plain upload
	if err := wire.UnmarshalDeclared(b, (*plain)(u)); err != nil {
		return err
	}
	return wire.UnmarshalExtra(b, &u.AdditionalProperties, "file", "avatar", "caption", "count", "labels", "metadata", "link", "expand")
}

var uploadEnc = []wire.Encoding{
	{Property: "metadata", ContentType: "application/json"},
	{Property: "file", ContentType: "image/png, image/jpeg"},
	{Property: "link", Style: wire.StyleDeepObject, Explode: true},
	{Property: "expand", Style: wire.StyleDeepObject, Explode: true},
}

// decodeUpload encodes sent as the client does and decodes it back.
func decodeUpload(t *testing.T, body []byte, ct string, opts ...Option) (upload, *Request) {
	t.Helper()
	r := httptest.NewRequest("POST", "/documents", bytes.NewReader(body))
	r.Header.Set("Content-Type", ct)
	e, _ := New(nil, opts...)
	var got upload
	d := e.Decode(httptest.NewRecorder(), r)
	d.Multipart(&got, true, uploadEnc...)
	return got, d
}

// TestMultipartDecodesWhatTheClientEncodes: wire.EncodeMultipart's body
// (file parts with hostile names, a JSON part, deepObject parts, a repeated
// part, additional properties) decodes back into the same struct, file
// content, names and types included.
func TestMultipartDecodesWhatTheClientEncodes(t *testing.T) {
	caption := "a \"quoted\"\r\ncaption"
	sent := upload{
		File:    idemrt.File{Name: "evil\"\r\nX-Injected: 1\\.png", ContentType: "image/jpeg", Content: strings.NewReader("\x89PNG\x00\xff")},
		Avatar:  idemrt.File{Name: "dir/ü ñ.bin", Content: strings.NewReader("avatar")},
		Caption: &caption, Count: 42, Labels: []string{"l1", "l,2"},
		Meta: &upMeta{Title: "t", Pages: 3}, Link: &upMeta{Title: "deep", Pages: 9},
		Expand: []string{"x", "y"}, AdditionalProperties: map[string]string{"na\"me\r\n": "v1", "other": "v2", "100%41%2": "v3"},
	}
	body, ct, err := wire.EncodeMultipart(sent, uploadEnc...)
	if err != nil {
		t.Fatal(err)
	}
	got, d := decodeUpload(t, body, ct)
	if d.err != nil {
		t.Fatalf("decode: %v", d.err)
	}
	for _, f := range []struct {
		got  idemrt.File
		name string
		ct   string
		data string
	}{{got.File, sent.File.Name, "image/jpeg", "\x89PNG\x00\xff"}, {got.Avatar, sent.Avatar.Name, "application/octet-stream", "avatar"}} {
		if f.got.Content == nil {
			t.Fatalf("file %q: no content", f.name)
		}
		b, _ := io.ReadAll(f.got.Content)
		if f.got.Name != f.name || f.got.ContentType != f.ct || string(b) != f.data {
			t.Errorf("file = %q %q %q, want %q %q %q", f.got.Name, f.got.ContentType, b, f.name, f.ct, f.data)
		}
	}
	got.File, got.Avatar, sent.File, sent.Avatar = idemrt.File{}, idemrt.File{}, idemrt.File{}, idemrt.File{}
	if !reflect.DeepEqual(got, sent) {
		g, _ := json.Marshal(got)
		s, _ := json.Marshal(sent)
		t.Errorf("decoded\n%s\nwant\n%s", g, s)
	}
}

// TestMultipartRefusals: a body of another type is 415; a malformed or
// oversized one, a part of the wrong type, too many parts: 400 (413 for the
// size), naming the part where there is one.
func TestMultipartRefusals(t *testing.T) {
	good, ct, _ := wire.EncodeMultipart(upload{File: idemrt.File{Name: "f", Content: strings.NewReader("x")}, Count: 1})
	var tooMany bytes.Buffer
	for range maxParts + 1 {
		tooMany.WriteString("--B\r\nContent-Disposition: form-data; name=\"labels\"\r\n\r\nv\r\n")
	}
	tooMany.WriteString("--B--\r\n")
	for _, c := range []struct {
		name   string
		body   []byte
		ct     string
		status int
		detail string
	}{
		{"json body", []byte(`{"count":1}`), "application/json", 415, "multipart/form-data"},
		{"no boundary", good, "multipart/form-data", 415, "boundary"},
		{"truncated", good[:len(good)/2], ct, 400, "multipart"},
		{"bad count", []byte("--B\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\nten\r\n--B--\r\n"), "multipart/form-data; boundary=B", 400, `"count"`},
		{"bad json part", []byte("--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\nContent-Type: application/json\r\n\r\n{\"pages\":\"x\"}\r\n--B--\r\n"), "multipart/form-data; boundary=B", 400, `"metadata"`},
		{"two files", []byte("--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nx\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b\"\r\n\r\ny\r\n--B--\r\n"), "multipart/form-data; boundary=B", 400, `"file"`},
		{"too many parts", tooMany.Bytes(), "multipart/form-data; boundary=B", 400, "parts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, d := decodeUpload(t, c.body, c.ct)
			if d.err == nil || d.status != c.status || !strings.Contains(d.err.Error(), c.detail) {
				t.Fatalf("got %d %v, want %d naming %s", d.status, d.err, c.status, c.detail)
			}
		})
	}
	_, d := decodeUpload(t, good, ct, WithMaxBody(int64(len(good)-1)))
	if d.status != 413 {
		t.Errorf("oversized body: %d %v, want 413", d.status, d.err)
	}
	var pe *PartError
	_, d = decodeUpload(t, []byte("--B\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\nten\r\n--B--\r\n"), "multipart/form-data; boundary=B")
	if !errors.As(d.err, &pe) || pe.Part != "count" {
		t.Errorf("error %v is not a *PartError naming count", d.err)
	}
}

// TestMultipartOptionalBody: an optional body (a pointer) is allocated and
// filled; an absent one stays nil.
func TestMultipartOptionalBody(t *testing.T) {
	body, ct, _ := wire.EncodeMultipart(upload{Count: 7})
	e, _ := New(nil)
	var got *upload
	r := httptest.NewRequest("POST", "/documents", bytes.NewReader(body))
	r.Header.Set("Content-Type", ct)
	d := e.Decode(httptest.NewRecorder(), r)
	d.Multipart(&got, false, uploadEnc...)
	if d.err != nil || got == nil || got.Count != 7 {
		t.Fatalf("got %+v, %v", got, d.err)
	}
	got = nil
	d = e.Decode(httptest.NewRecorder(), httptest.NewRequest("POST", "/documents", nil))
	d.Multipart(&got, false, uploadEnc...)
	if d.err != nil || got != nil {
		t.Fatalf("absent body: %+v, %v", got, d.err)
	}
}

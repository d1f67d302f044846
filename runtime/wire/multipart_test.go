package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// hostileForm is a multipart body whose file and member names the caller
// (or the caller's own user) wrote.
type hostileForm struct {
	File  File              `json:"file"`
	Extra map[string]string `json:"-"`
}

// MarshalJSON adds Extra as additional properties, as a generated model does.
func (f hostileForm) MarshalJSON() ([]byte, error) { return json.Marshal(f.Extra) }

// partRecorder is a loopback server that parses every request with
// mime/multipart and keeps the header of each part.
type partRecorder struct {
	mu    sync.Mutex
	reqs  int
	parts []textproto.MIMEHeader
	err   error
}

func (s *partRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs++
	mr, err := r.MultipartReader()
	for err == nil {
		var p *multipart.Part
		if p, err = mr.NextPart(); err == nil {
			s.parts = append(s.parts, p.Header)
			_, err = io.Copy(io.Discard, p)
		}
	}
	if err != io.EOF {
		s.err = err
	}
}

// send builds v's multipart body and posts it to srv as the engine would
// (the fixed pieces and the readers, in order); a Build error is returned
// and nothing is sent.
func send(t *testing.T, srv *httptest.Server, v any, enc ...Encoding) error {
	t.Helper()
	server, _ := url.Parse(srv.URL)
	b := NewBuilder(server, "POST", "/upload")
	b.MultipartBody(v, enc...)
	req, err := b.Build()
	if err != nil {
		return err
	}
	body := bytes.NewBuffer(req.Body)
	for _, p := range req.Stream {
		body.Write(p.Bytes)
		if p.Reader != nil {
			_, _ = io.Copy(body, p.Reader)
		}
	}
	resp, err := http.Post(req.URL.String(), req.Header.Get("Content-Type"), body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Body.Close()
}

// dispositionOf parses a part's Content-Disposition as a server does.
func dispositionOf(t *testing.T, h textproto.MIMEHeader) map[string]string {
	t.Helper()
	kind, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
	if err != nil || kind != "form-data" {
		t.Fatalf("Content-Disposition %q: %s, %v", h.Get("Content-Disposition"), kind, err)
	}
	return params
}

// TestMultipartNamesCannotInjectHeaders: CR, LF and quotes in a file name
// or a member name reach the server percent-encoded (%0D, %0A, %22, as
// browsers send them) inside the one Content-Disposition line, and a
// backslash round-trips: a loopback server parsing the body with
// mime/multipart sees exactly the parts sent, with no extra header.
func TestMultipartNamesCannotInjectHeaders(t *testing.T) {
	rec := &partRecorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	form := hostileForm{
		File: File{Name: "a\"b\\c.txt\r\nX-Injected: file", ContentType: "text/plain", Content: strings.NewReader("data")},
		Extra: map[string]string{
			"note\r\nX-Injected: member": "v",
			"tab\there\x00nul\x7f":       "w",
		},
	}
	if err := send(t, srv, form); err != nil {
		t.Fatal(err)
	}
	if rec.err != nil || rec.reqs != 1 || len(rec.parts) != 3 {
		t.Fatalf("%d requests, %d parts, %v; want 1 request of 3 parts", rec.reqs, len(rec.parts), rec.err)
	}
	want := []map[string]string{
		{"name": "file", "filename": `a%22b\c.txt%0D%0AX-Injected: file`},
		{"name": "note%0D%0AX-Injected: member"},
		{"name": "tab\there%00nul%7F"},
	}
	for i, h := range rec.parts {
		for k := range h {
			if k != "Content-Disposition" && k != "Content-Type" {
				t.Errorf("part %d has the header lines %q", i, slices.Sorted(maps.Keys(h)))
			}
		}
		if got := dispositionOf(t, h); !maps.Equal(got, want[i]) {
			t.Errorf("part %d: Content-Disposition %q parses as %q, want %q", i, h.Get("Content-Disposition"), got, want[i])
		}
	}
}

// TestMultipartRefusesControlsInContentType: a file's Content-Type (or a
// declared one) with a control character is refused before anything is
// sent, with an error matching ErrInvalidParam.
func TestMultipartRefusesControlsInContentType(t *testing.T) {
	rec := &partRecorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	for name, tc := range map[string]struct {
		form hostileForm
		enc  []Encoding
	}{
		"file CR LF": {form: hostileForm{File: File{Name: "a", ContentType: "text/plain\r\nX-Injected: 1", Content: strings.NewReader("x")}}},
		"file NUL":   {form: hostileForm{File: File{Name: "a", ContentType: "text/plain\x00", Content: strings.NewReader("x")}}},
		"declared":   {form: hostileForm{File: File{Name: "a", Content: strings.NewReader("x")}}, enc: []Encoding{{Property: "file", ContentType: "image/png\nX-Injected: 1"}}},
		"member": {form: hostileForm{Extra: map[string]string{"m": "v"}},
			enc: []Encoding{{Property: "m", ContentType: "text/plain\rX-Injected: 1"}}},
	} {
		err := send(t, srv, tc.form, tc.enc...)
		if !errors.Is(err, ErrInvalidParam) || !strings.Contains(err.Error(), "control character") {
			t.Errorf("%s: %v; want ErrInvalidParam for a control character", name, err)
		}
	}
	if rec.reqs != 0 {
		t.Fatalf("the server got %d requests, want none", rec.reqs)
	}
}

// fileUpload is Stripe's POST /v1/files body: a file, a deepObject object
// and a deepObject list, plus a list without an encoding.
type fileUpload struct {
	File         []byte        `json:"file"`
	FileLinkData *fileLinkData `json:"file_link_data,omitempty"`
	Expand       []string      `json:"expand,omitempty"`
	Tags         []string      `json:"tags,omitempty"`
}

type fileLinkData struct {
	Create   bool              `json:"create"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Lines    []struct {
		Rates []string `json:"rates"`
	} `json:"lines,omitempty"`
}

// TestMultipartDeepObjectParts: a part whose encoding is deepObject is sent
// as bracketed text parts, file_link_data[create]=true and expand[0]=a, as
// Stripe reads them (one JSON part or repeated expand parts are refused);
// a property without an encoding keeps the multipart default.
func TestMultipartDeepObjectParts(t *testing.T) {
	body := fileUpload{
		File: []byte("x"),
		FileLinkData: &fileLinkData{Create: true, Metadata: map[string]string{"k": "v"},
			Lines: []struct {
				Rates []string `json:"rates"`
			}{{Rates: []string{"r1", "r2"}}}},
		Expand: []string{"file_link", "links"},
		Tags:   []string{"a", "b"},
	}
	b, ct, err := EncodeMultipart(body,
		Encoding{Property: "file_link_data", Style: StyleDeepObject, Explode: true},
		Encoding{Property: "expand", Style: StyleDeepObject, Explode: true})
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(ct)
	mr := multipart.NewReader(bytes.NewReader(b), params["boundary"])
	var got []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		v, _ := io.ReadAll(p)
		got = append(got, p.FormName()+"="+string(v))
	}
	want := []string{"file=x", "file_link_data[create]=true", "file_link_data[metadata][k]=v",
		"file_link_data[lines][0][rates][0]=r1", "file_link_data[lines][0][rates][1]=r2",
		"expand[0]=file_link", "expand[1]=links", "tags=a", "tags=b"}
	if !slices.Equal(got, want) {
		t.Errorf("parts\n%q\nwant\n%q", got, want)
	}
}

package conformance

// The generated client's multipart Upload against the generated server: the
// file and the declared member reach the handler as the caller passed them.

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	idemrt "github.com/idemgen/idemgen/runtime"
)

// uploadEcho keeps what Upload received; the embedded Handler stands for
// the methods this test does not call.
type uploadEcho struct {
	Handler
	got  UploadRequest
	data []byte
}

func (e *uploadEcho) Upload(_ context.Context, body UploadRequest) error {
	b, err := io.ReadAll(body.File.Content)
	e.got, e.data = body, b
	return err
}

func TestServerMultipartUpload(t *testing.T) {
	h := &uploadEcho{}
	srv, err := NewServer(h)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	model := "whisper"
	sent := UploadRequest{File: idemrt.File{Name: "a.wav", ContentType: "audio/wav", Content: strings.NewReader("RIFF")}, Model: &model}
	if err := c.Upload(context.Background(), sent); err != nil {
		t.Fatal(err)
	}
	if string(h.data) != "RIFF" || h.got.File.Name != "a.wav" || h.got.File.ContentType != "audio/wav" {
		t.Errorf("file received %q %q %q", h.got.File.Name, h.got.File.ContentType, h.data)
	}
	if h.got.Model == nil || *h.got.Model != model {
		t.Errorf("model received %v", h.got.Model)
	}
}

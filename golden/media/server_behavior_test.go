package media_test

// The generated media client against the generated media server: a form
// body with per-property encodings and a raw body arrive as the client
// passed them (multipart bodies and negotiated answers: server_files_test.go).

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	idemsrv "github.com/idemgen/idemgen/server"
)

type mediaEcho struct {
	form   media.SearchForm
	blob   []byte
	name   string
	cancel *media.CancelSearchRequest
	// upload and file are what UploadDocument received; report is what
	// GetReport answers (nil: the negotiated type's field).
	upload media.DocumentUpload
	file   []byte
	report *media.GetReportResult
	// link is what GetExportLink answers.
	link *media.GetExportLinkResult
}

func (e *mediaEcho) CancelSearch(_ context.Context, body *media.CancelSearchRequest, p media.CancelSearchParams) error {
	e.cancel, e.name = body, p.ID
	return nil
}

func (e *mediaEcho) CreateExport(context.Context) (*media.Document, error) {
	return &media.Document{ID: "x1"}, nil
}

func (e *mediaEcho) GetExport(_ context.Context, p media.GetExportParams) (*media.Document, error) {
	return &media.Document{ID: p.ID}, nil
}

func (e *mediaEcho) GetExportLink(context.Context, media.GetExportLinkParams) (*media.GetExportLinkResult, error) {
	return e.link, nil
}

func (e *mediaEcho) StartLogin(context.Context) (*media.StartLoginResult, error) {
	return &media.StartLoginResult{Location: "https://idp.example/authorize?state=s1"}, nil
}

func (e *mediaEcho) PutBlob(_ context.Context, body io.Reader, p media.PutBlobParams) error {
	b, err := io.ReadAll(body)
	e.blob, e.name = b, p.Name
	return err
}

func (e *mediaEcho) SubmitSearch(_ context.Context, body media.SearchForm) error {
	e.form = body
	return nil
}

func TestServerDecodesFormAndRawBodies(t *testing.T) {
	h := &mediaEcho{}
	srv, err := media.NewServer(h, idemsrv.WithoutLedger())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := media.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	form := media.SearchForm{Query: "a&b c", Expand: []string{"x", "y"}, IDs: []int64{1, 2}, Levels: []string{"l1", "l2"},
		Sort: []string{"s1", "s2"}, Tags: []string{"t1", "t,2"}}
	if err := c.SubmitSearch(ctx, form); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.form, form) {
		t.Errorf("form received %+v, want %+v", h.form, form)
	}
	blob := []byte{0, 1, 2, 0xff}
	if err := c.PutBlob(ctx, bytes.NewReader(blob), media.PutBlobParams{Name: "a b"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h.blob, blob) || h.name != "a b" {
		t.Errorf("blob %v under %q", h.blob, h.name)
	}
	reason := "changed my mind"
	if err := c.CancelSearch(ctx, &media.CancelSearchRequest{Reason: &reason}, media.CancelSearchParams{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if h.cancel == nil || *h.cancel.Reason != reason || h.name != "s1" {
		t.Errorf("cancel received %+v for %q", h.cancel, h.name)
	}
	if err := c.CancelSearch(ctx, nil, media.CancelSearchParams{ID: "s2"}); err != nil || h.cancel != nil {
		t.Errorf("cancel without a body: %v, handler got %+v", err, h.cancel)
	}
	login, err := c.StartLogin(ctx)
	if err != nil || login.StatusCode != 302 || login.Location != "https://idp.example/authorize?state=s1" {
		t.Errorf("StartLogin = %+v, %v (the declared redirect is the answer)", login, err)
	}
}

package media_test

// The generated media client against the generated media server: a form
// body with per-property encodings and a raw body arrive as the client
// passed them; an operation the server does not serve yet answers 501.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	idemrt "github.com/idemgen/idemgen/runtime"
)

type mediaEcho struct {
	form   media.SearchForm
	blob   []byte
	name   string
	cancel *media.CancelSearchRequest
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
	srv, err := media.NewServer(h)
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
	_, err = c.GetReport(ctx, media.GetReportParams{ReportID: "r1"}, idemrt.WithMaxAttempts(1))
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != 501 {
		t.Errorf("unserved operation: %v", err)
	}
}

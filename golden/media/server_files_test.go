package media_test

// The generated media client against the generated media server: a
// multipart upload (a file with a hostile name, a JSON part, deepObject
// parts, a repeated part, additional properties) reaches the handler
// exactly as the caller passed it; GetReport answers in the media type the
// request's Accept header ranks first (406 when it allows none), and the
// client decodes exactly what the handler returned.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

func (e *mediaEcho) UploadDocument(_ context.Context, body media.DocumentUpload, p media.UploadDocumentParams) (*media.Document, error) {
	b, err := io.ReadAll(body.File.Content)
	e.upload, e.file, e.name = body, b, p.IdempotencyKey
	return &media.Document{ID: body.File.Name}, err
}

func (e *mediaEcho) GetReport(ctx context.Context, p media.GetReportParams) (*media.GetReportResult, error) {
	if e.report != nil {
		return e.report, nil
	}
	out := &media.GetReportResult{ContentType: idemsrv.MediaType(ctx)}
	switch out.ContentType {
	case "application/json":
		out.Body = media.Report{ID: p.ReportID, Total: 3}
	case "text/csv":
		out.BodyText = "id,total\n" + p.ReportID + ",3\n"
	default:
		out.BodyBytes = []byte("%PDF-" + p.ReportID)
	}
	return out, nil
}

// serveMedia runs the generated server for h on 127.0.0.1 and returns a
// client of it and its URL.
func serveMedia(t *testing.T, h *mediaEcho) (*media.Client, string) {
	t.Helper()
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
	return c, ts.URL
}

func TestServerDecodesMultipartUpload(t *testing.T) {
	h := &mediaEcho{}
	c, _ := serveMedia(t, h)
	caption, title, pages := "# Title\r\n\"quoted\"", "meta", int32(4)
	file := []byte("\x89PNG\r\n\x1a\n\x00\xff")
	sent := media.DocumentUpload{
		File:                 idemrt.File{Name: "a\"b\r\nContent-Type: text/html\\x.png", ContentType: "image/jpeg", Content: bytes.NewReader(file)},
		Caption:              &caption,
		Labels:               []string{"l1", "l,2", ""},
		Link:                 &media.DocumentMetadata{Title: &title, Pages: &pages},
		Metadata:             &media.DocumentMetadata{Title: &title},
		Expand:               []string{"x", "y[0]"},
		AdditionalProperties: map[string]string{"extra\"\n": "v1", "other": "v 2"},
	}
	doc, err := c.UploadDocument(context.Background(), sent, media.UploadDocumentParams{IdempotencyKey: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	if doc.ID != sent.File.Name {
		t.Errorf("client decoded %+v, want the ID the handler returned (%q)", doc, sent.File.Name)
	}
	got := h.upload
	if !bytes.Equal(h.file, file) || got.File.Name != sent.File.Name || got.File.ContentType != "image/jpeg" || h.name != "k1" {
		t.Errorf("file received %q %q %q under key %q", got.File.Name, got.File.ContentType, h.file, h.name)
	}
	got.File, sent.File = idemrt.File{}, idemrt.File{}
	if !reflect.DeepEqual(got, sent) {
		g, _ := json.Marshal(got)
		s, _ := json.Marshal(sent)
		t.Errorf("handler received\n%s\nwant\n%s", g, s)
	}
}

func TestServerNegotiatesReport(t *testing.T) {
	h := &mediaEcho{}
	c, url := serveMedia(t, h)
	ctx := context.Background()
	p := media.GetReportParams{ReportID: "r1"}
	// The client accepts every declared type: the first one is answered.
	out, err := c.GetReport(ctx, p)
	want := &media.GetReportResult{StatusCode: 200, ContentType: "application/json", Body: media.Report{ID: "r1", Total: 3}}
	if err != nil || !reflect.DeepEqual(out, want) {
		t.Errorf("GetReport = %+v, %v, want %+v", out, err, want)
	}
	// The download method accepts the PDF only, and the handler sees it.
	body, err := c.GetReportDownload(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	pdf, _ := io.ReadAll(body)
	body.Close()
	if string(pdf) != "%PDF-r1" || body.ContentType != "application/pdf" {
		t.Errorf("GetReportDownload = %q as %q", pdf, body.ContentType)
	}
	// The handler's own choices: another type, another status.
	for _, ans := range []*media.GetReportResult{
		{StatusCode: 200, ContentType: "text/csv", BodyText: "id\nr1\n"},
		{StatusCode: 202, BodyText: "40% done"},
	} {
		h.report = ans
		out, err := c.GetReport(ctx, p)
		if ans.StatusCode == 202 {
			ans.ContentType = "" // a 202 has one type: the client does not record it
		}
		if err != nil || !reflect.DeepEqual(out, ans) {
			t.Errorf("GetReport = %+v, %v, want %+v", out, err, ans)
		}
	}
	// A type the request does not accept, before and after the handler.
	h.report = &media.GetReportResult{ContentType: "application/pdf", BodyBytes: []byte("x")}
	_, err = c.GetReport(ctx, p, idemrt.WithHeader("Accept", "text/csv"))
	var se *idemrt.StatusError
	if !errors.As(err, &se) || se.StatusCode != 406 {
		t.Errorf("handler's unacceptable type: %v, want 406", err)
	}
	req, _ := http.NewRequest("GET", url+"/reports/r1", nil)
	req.Header.Set("Accept", "image/png")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 406 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("Accept image/png: %d %s, want a 406 problem", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

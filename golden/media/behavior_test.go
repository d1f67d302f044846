package media_test

// Behaviour tests of the generated media client against a loopback server:
// the wire bytes of forms and multipart bodies with per-property encodings,
// and responses decoded by their Content-Type.

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	_ "github.com/idemgen/idemgen/internal/testutil"
	idemrt "github.com/idemgen/idemgen/runtime"
)

// capture serves h on 127.0.0.1 and returns a client and the last request's
// Content-Type and body as the server read them.
func capture(t *testing.T, h http.HandlerFunc) (*media.Client, *string, *[]byte) {
	t.Helper()
	var ct string
	var body []byte
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct = r.Header.Get("Content-Type")
		body, _ = io.ReadAll(r.Body)
		h(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := media.NewClient(ts.URL, idemrt.WithPolicy(idemrt.Interactive, idemrt.Policy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return c, &ct, &body
}

func TestFormEncodingsOnTheWire(t *testing.T) {
	c, ct, body := capture(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	err := c.SubmitSearch(context.Background(), media.SearchForm{Query: "q", Tags: []string{"a", "b"},
		IDs: []int64{1, 2}, Levels: []string{"x", "y"}, Expand: []string{"e1", "e2"}, Sort: []string{"s1", "s2"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "expand%5B0%5D=e1&expand%5B1%5D=e2&ids=1%202&levels=x|y&query=q&sort=s1&sort=s2&tags=a,b"
	if *ct != "application/x-www-form-urlencoded" || string(*body) != want {
		t.Fatalf("%s\n%s\nwant\n%s", *ct, *body, want)
	}
}

// TestOmittedOptionalFormIsAnEmptyForm: an optional form body left nil is
// sent as an empty form with its Content-Type, as form-reading servers
// (Stripe) require; a given one is encoded as usual.
func TestOmittedOptionalFormIsAnEmptyForm(t *testing.T) {
	c, ct, body := capture(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	if err := c.CancelSearch(context.Background(), nil, media.CancelSearchParams{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if *ct != "application/x-www-form-urlencoded" || len(*body) != 0 {
		t.Fatalf("Content-Type %q, body %q; want an empty form", *ct, *body)
	}
	reason := "dup"
	if err := c.CancelSearch(context.Background(), &media.CancelSearchRequest{Reason: &reason}, media.CancelSearchParams{ID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if *ct != "application/x-www-form-urlencoded" || string(*body) != "reason=dup" {
		t.Fatalf("Content-Type %q, body %q; want reason=dup", *ct, *body)
	}
}

func TestMultipartPartsOnTheWire(t *testing.T) {
	c, ct, body := capture(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"d1"}`)
	})
	title, caption := "Deck", "*bold*"
	doc, err := c.UploadDocument(context.Background(), media.DocumentUpload{File: idemrt.File{Content: strings.NewReader("PNG")}, Caption: &caption,
		Metadata: &media.DocumentMetadata{Title: &title}, Labels: []string{"l1", "l2"},
		Link: &media.DocumentMetadata{Title: &title}, Expand: []string{"e1", "e2"},
		AdditionalProperties: map[string]string{"source": "scanner", "batch": "7"}}, media.UploadDocumentParams{})
	if err != nil || doc.ID != "d1" {
		t.Fatalf("%v %v", doc, err)
	}
	want := []string{
		"caption||text/markdown|*bold*",
		"expand[0]|||e1",
		"expand[1]|||e2",
		"file|file|image/png|PNG",
		"labels|||l1",
		"labels|||l2",
		"link[title]|||Deck",
		`metadata||application/json|{"title":"Deck"}`,
		"batch|||7",
		"source|||scanner",
	}
	if got := parts(t, *ct, *body); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("parts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// parts lists name|filename|content-type|data for each part of a body.
func parts(t *testing.T, ct string, body []byte) []string {
	t.Helper()
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatal(err)
	}
	r := multipart.NewReader(strings.NewReader(string(body)), params["boundary"])
	var got []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		got = append(got, p.FormName()+"|"+p.FileName()+"|"+p.Header.Get("Content-Type")+"|"+string(data))
	}
}

// reportServer answers GetReport with the status, type and body given.
func reportServer(t *testing.T, status int, ct, body string) *media.Client {
	c, _, _ := capture(t, func(w http.ResponseWriter, _ *http.Request) {
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing: send none
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
	return c
}

func TestResponseDecodedByContentType(t *testing.T) {
	ctx := context.Background()
	p := media.GetReportParams{ReportID: "r1"}
	r, err := reportServer(t, 200, "application/json; charset=utf-8", `{"id":"r1","total":3}`).GetReport(ctx, p)
	if err != nil || r.Body.Total != 3 || r.ContentType != "application/json" || r.BodyText != "" {
		t.Fatalf("json: %+v %v", r, err)
	}
	r, err = reportServer(t, 200, "text/csv", "id,total\nr1,3\n").GetReport(ctx, p)
	if err != nil || r.BodyText != "id,total\nr1,3\n" || r.ContentType != "text/csv" || r.Body.ID != "" {
		t.Fatalf("csv: %+v %v", r, err)
	}
	r, err = reportServer(t, 200, "application/pdf", "%PDF-1.7").GetReport(ctx, p)
	if err != nil || string(r.BodyBytes) != "%PDF-1.7" || r.ContentType != "application/pdf" {
		t.Fatalf("pdf: %+v %v", r, err)
	}
	r, err = reportServer(t, 202, "text/plain", "40% done").GetReport(ctx, p)
	if err != nil || r.BodyText != "40% done" || r.StatusCode != 202 {
		t.Fatalf("202: %+v %v", r, err)
	}
	r, err = reportServer(t, 200, "", `{"id":"r2","total":1}`).GetReport(ctx, p)
	if err != nil || r.Body.ID != "r2" {
		t.Fatalf("no Content-Type: JSON is preferred: %+v %v", r, err)
	}
}

func TestUndeclaredResponseTypeIsAClearError(t *testing.T) {
	_, err := reportServer(t, 200, "image/png", "PNG").GetReport(context.Background(), media.GetReportParams{ReportID: "r1"})
	if !errors.Is(err, idemrt.ErrUnexpectedContentType) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"200", `"image/png"`, "application/json, text/csv, application/pdf"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestReportDownloadAsksForThePDF: GetReport keeps its shape and says what
// it decodes; GetReportDownload asks for the binary type and hands the
// bytes over as a reader.
func TestReportDownloadAsksForThePDF(t *testing.T) {
	var accepts []string
	c, _, _ := capture(t, func(w http.ResponseWriter, r *http.Request) {
		accepts = append(accepts, r.Header.Get("Accept"))
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, "%PDF-1.7 whole")
	})
	body, err := c.GetReportDownload(context.Background(), media.GetReportParams{ReportID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil || string(data) != "%PDF-1.7 whole" || body.ContentType != "application/pdf" {
		t.Fatalf("download %q (%s): %v", data, body.ContentType, err)
	}
	if _, err := c.GetReport(context.Background(), media.GetReportParams{ReportID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if len(accepts) != 2 || accepts[0] != "application/pdf" || accepts[1] != "application/json, text/csv, application/pdf, text/plain" {
		t.Fatalf("Accept headers %q", accepts)
	}
}

package media_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/golden/media"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ledger"
	"github.com/idemgen/idemgen/ledger/sqlitestore"
	idemrt "github.com/idemgen/idemgen/runtime"
	idemsrv "github.com/idemgen/idemgen/server"
)

var errNotServedHere = errors.New("not served by this test handler")

// The keyed report operations are served by reportEcho; mediaEcho's other
// tests do not call them.
func (e *mediaEcho) RenderReport(context.Context, media.RenderReportParams) (*idemsrv.Download, error) {
	return nil, errNotServedHere
}

func (e *mediaEcho) ShareReport(context.Context, media.ShareReportParams) (*media.ShareReportResult, error) {
	return nil, errNotServedHere
}

// reportEcho serves the keyed report operations and counts how many times
// each business action ran.
type reportEcho struct {
	*mediaEcho
	renders, shares atomic.Int64
}

func (e *reportEcho) RenderReport(_ context.Context, p media.RenderReportParams) (*idemsrv.Download, error) {
	n := e.renders.Add(1)
	return &idemsrv.Download{
		Content: bytes.NewReader([]byte("%PDF-" + p.ReportID)),
		Header:  http.Header{"Content-Disposition": {`attachment; filename="` + p.Tenant + "-" + p.ReportID + `.pdf"`}},
		// The render count in the name shows which execution answered.
		ContentType: "application/pdf; x-render=" + string(rune('0'+n)),
	}, nil
}

func (e *reportEcho) ShareReport(_ context.Context, p media.ShareReportParams) (*media.ShareReportResult, error) {
	n := e.shares.Add(1)
	return &media.ShareReportResult{Body: media.Document{ID: p.Tenant + "/" + p.ReportID}, XShareViews: 40 + n}, nil
}

// serveReports runs the generated server for h on 127.0.0.1 with a SQLite
// ledger; the first request's answer is lost after the ledger committed
// it (the connection is closed unanswered), so the client's retry with the
// same key is answered from the ledger.
func serveReports(t *testing.T, h *reportEcho) *media.Client {
	t.Helper()
	store, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	l, err := ledger.New(ledger.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := media.NewServer(h, idemsrv.WithLedger(l))
	if err != nil {
		t.Fatal(err)
	}
	var seen atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) == 1 {
			srv.ServeHTTP(httptest.NewRecorder(), r)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := media.NewClient(ts.URL, idemrt.WithClock(testutil.NewFakeClock()), idemrt.WithRandom(func() float64 { return 0.5 }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReplayKeepsDeclaredHeaders: the typed field of a declared response
// header (X-Share-Views) reads on a replayed retry what the first, lost,
// answer said; the handler ran once.
func TestReplayKeepsDeclaredHeaders(t *testing.T) {
	h := &reportEcho{mediaEcho: &mediaEcho{}}
	c := serveReports(t, h)
	var log []idemrt.Attempt
	res, err := c.ShareReport(context.Background(), media.ShareReportParams{ReportID: "r1", Tenant: "acme"}, idemrt.WithAttemptLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[1].Reason != idemrt.ReasonUnknownOutcome {
		t.Fatalf("attempts %+v, want a lost answer then a retry", log)
	}
	if n := h.shares.Load(); n != 1 {
		t.Errorf("the share ran %d times, want 1", n)
	}
	if res.XShareViews != 41 || res.Body.ID != "acme/r1" || res.StatusCode != 201 {
		t.Errorf("replayed result %+v, want X-Share-Views 41 and the body of the first execution", res)
	}
}

// TestReplayKeepsDownloadFilename: a keyed download's Content-Disposition
// (its file name) and Content-Type read on a replayed retry as the lost
// first answer sent them; the render ran once.
func TestReplayKeepsDownloadFilename(t *testing.T) {
	h := &reportEcho{mediaEcho: &mediaEcho{}}
	c := serveReports(t, h)
	var log []idemrt.Attempt
	body, err := c.RenderReport(context.Background(), media.RenderReportParams{ReportID: "r1", Tenant: "acme"}, idemrt.WithAttemptLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[1].Reason != idemrt.ReasonUnknownOutcome || h.renders.Load() != 1 {
		t.Fatalf("attempts %+v, %d renders; want a lost answer, a retry and one render", log, h.renders.Load())
	}
	_, params, err := mime.ParseMediaType(body.Header.Get("Content-Disposition"))
	if err != nil || params["filename"] != "acme-r1.pdf" {
		t.Errorf("replayed Content-Disposition %q (%v), want the file name acme-r1.pdf", body.Header.Get("Content-Disposition"), err)
	}
	if string(b) != "%PDF-r1" || body.ContentType != "application/pdf; x-render=1" {
		t.Errorf("replayed %q as %q, want the first render", b, body.ContentType)
	}
}

// TestKeyedCookieParameterIsFingerprinted: the same key sent for another
// tenant (a cookie parameter) is refused as key reuse, never answered with
// the first tenant's share; the share ran once.
func TestKeyedCookieParameterIsFingerprinted(t *testing.T) {
	h := &reportEcho{mediaEcho: &mediaEcho{}}
	c := serveReports(t, h)
	key := "share-key-1"
	first, err := c.ShareReport(context.Background(), media.ShareReportParams{IdempotencyKey: key, ReportID: "r1", Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.ShareReport(context.Background(), media.ShareReportParams{IdempotencyKey: key, ReportID: "r1", Tenant: "globex"})
	if !errors.Is(err, idemrt.ErrKeyReuse) {
		t.Errorf("the same key for tenant globex: %+v, %v; want ErrKeyReuse (422)", other, err)
	}
	if n := h.shares.Load(); n != 1 || first.Body.ID != "acme/r1" {
		t.Errorf("%d shares, first %+v; want one, for acme", n, first)
	}
}

package generator

import (
	"strings"
	"testing"
)

// TestServerServesFilesAndMedia: downloads, multipart bodies and answers of
// several media types are served (not answered 501), each in the server
// form of its client method.
func TestServerServesFilesAndMedia(t *testing.T) {
	for spec, wants := range map[string][]string{
		"media.yaml": {
			"UploadDocument(ctx context.Context, body DocumentUpload, params UploadDocumentParams) (*Document, error)",
			"GetReport(ctx context.Context, params GetReportParams) (*GetReportResult, error)",
			`d.Multipart(&body,`,
			`wire.Encoding{Property: "link", Style: wire.StyleDeepObject, Explode: true},`,
			`idemsrv.Negotiate(r, []string{"application/json", "text/csv", "application/pdf", "text/plain"})`,
			`s.engine.WriteMedia(w, r, st, out.ContentType,`,
		},
		"streaming.yaml": {
			"DownloadFile(ctx context.Context, params DownloadFileParams) (*idemsrv.Download, error)",
			`s.engine.WriteDownload(w, r, 200, "application/octet-stream", out)`,
			`s.engine.WriteDownload(w, r, 200, "image/png", out)`,
		},
	} {
		src := serverFiles(t, spec)["server_gen.go"]
		for _, want := range wants {
			if !strings.Contains(src, want) {
				t.Errorf("%s: server_gen.go lacks %s", spec, want)
			}
		}
		for _, gap := range []string{"it answers a download", "it takes a multipart body", "it answers several media types"} {
			if strings.Contains(src, gap) {
				t.Errorf("%s: still not served: %s", spec, gap)
			}
		}
	}
}

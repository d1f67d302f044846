package generator

import (
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/parser"
)

// openAIUploadTest is the test compiled into the generated OpenAI package:
// it uploads a file with a file name and a content type (idemrt.File) to
// a loopback /files that checks the multipart part, with a credential
// source for the API key.
const openAIUploadTest = `package openai_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"example.com/gentest/openai"
	idemrt "github.com/idemgen/idemgen/runtime"
)

func TestCreateFileUpload(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/files" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "wrong path or key", http.StatusBadRequest)
			return
		}
		f, h, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(f)
		if h.Filename != "train.jsonl" || h.Header.Get("Content-Type") != "application/jsonl" ||
			string(data) != "{\"prompt\":\"hi\"}\n" || r.FormValue("purpose") != "fine-tune" {
			http.Error(w, "part "+h.Filename+" "+h.Header.Get("Content-Type"), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req-1")
		io.WriteString(w, ` + "`" + `{"id":"file-1","object":"file","bytes":16,"created_at":1,"filename":"train.jsonl","purpose":"fine-tune","status":"uploaded"}` + "`" + `)
	}))
	defer ts.Close()
	c, err := openai.NewClient(ts.URL, openai.WithAPIKeyAuthSource(func(context.Context) (string, error) { return "sk-test", nil }))
	if err != nil {
		t.Fatal(err)
	}
	var resp *http.Response
	f, err := c.CreateFile(context.Background(), openai.CreateFileRequest{
		File:    idemrt.File{Name: "train.jsonl", ContentType: "application/jsonl", Content: strings.NewReader("{\"prompt\":\"hi\"}\n")},
		Purpose: openai.CreateFileRequestPurposeFineTune,
	}, idemrt.WithResponse(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if f.ID != "file-1" || f.Filename != "train.jsonl" || resp.Header.Get("X-Request-Id") != "req-1" {
		t.Fatalf("file %+v", f)
	}
}
`

// TestOpenAIUploadsAFile generates the OpenAI client from ../shared/specs
// into a temporary module and runs a test in it that uploads a file with a
// file name and content type to a loopback server checking the part. It
// is skipped under -short: the package is large.
func TestOpenAIUploadsAFile(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates and compiles the OpenAI client")
	api, diags, err := parser.Load(filepath.Join(dir, "openai.yaml"), parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Fatalf("load: %v %v", err, diags.Errors())
	}
	out, err := Generate(api, Config{Package: "openai"})
	if err != nil {
		t.Fatal(err)
	}
	files := append(out.Files, File{Name: "upload_test.go", Content: []byte(openAIUploadTest)})
	mod := writeModule(t, map[string][]File{"openai": files})
	if out, err := goTool(mod, "test", "-count=1", "-run", "TestCreateFileUpload", "./openai/"); err != nil {
		t.Fatalf("go test: %v\n%s", err, truncate(out, 4000))
	}
}

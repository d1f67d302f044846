package generator

import (
	"path/filepath"
	"strings"
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

// openAIStreamTest is compiled into the generated OpenAI package beside
// openAIUploadTest: CreateChatCompletionStream asks a loopback
// /chat/completions for events (Accept, "stream": true) and reads the typed
// chunks up to [DONE].
const openAIStreamTest = `package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"example.com/gentest/openai"
)

func TestCreateChatCompletionStream(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if r.URL.Path != "/chat/completions" || r.Header.Get("Accept") != "text/event-stream" || body["stream"] != true {
			http.Error(w, "want a stream request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{"Hel", "lo"} {
			io.WriteString(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","+
				"\"choices\":[{\"index\":0,\"finish_reason\":null,\"delta\":{\"content\":\""+part+"\"}}]}\n\n")
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer ts.Close()
	c, err := openai.NewClient(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	model, text := "m", "hi"
	s, err := c.CreateChatCompletionStream(context.Background(), openai.CreateChatCompletionRequest{
		Model: openai.ModelIDsShared{String: &model},
		Messages: []openai.ChatCompletionRequestMessage{{ChatCompletionRequestUserMessage: &openai.ChatCompletionRequestUserMessage{
			Role: openai.UserRoleUser, Content: openai.ChatCompletionRequestUserMessageContent{String: &text}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got strings.Builder
	for s.Next() {
		for _, ch := range s.Current().Choices {
			got.WriteString(ch.Delta.Content.Or(""))
		}
	}
	if s.Err() != nil || got.String() != "Hello" {
		t.Fatalf("streamed %q, err %v", got.String(), s.Err())
	}
}
`

// TestOpenAIUploadsAFile generates the OpenAI client from ../shared/specs
// into a temporary module and runs tests in it: one uploads a file with a
// file name and content type to a loopback server checking the part, one
// streams a chat completion (openAIStreamTest). It is skipped under
// -short: the package is large.
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
	files := append(out.Files, File{Name: "upload_test.go", Content: []byte(openAIUploadTest)},
		File{Name: "stream_test.go", Content: []byte(openAIStreamTest)})
	mod := writeModule(t, map[string][]File{"openai": files})
	out2, err := goTool(mod, "test", "-count=1", "-run", "TestCreateFileUpload|TestCreateChatCompletionStream", "-v", "./openai/")
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, truncate(out2, 4000))
	}
	for _, name := range []string{"TestCreateFileUpload", "TestCreateChatCompletionStream"} {
		if !strings.Contains(out2, "--- PASS: "+name) {
			t.Errorf("%s did not run:\n%s", name, truncate(out2, 4000))
		}
	}
}

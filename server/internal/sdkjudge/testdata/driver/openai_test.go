package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	idemsrv "github.com/idemgen/idemgen/server"

	gen "sdkjudge.test/openai"
)

// uploaded is what CreateFile received: the file is read inside the
// handler, while the request is still open.
type uploaded struct {
	name, contentType, content, purpose string
}

// openaiHandler answers the operations the tests call with the fixtures
// below and keeps what it received; the other operations are never called.
type openaiHandler struct {
	gen.Handler
	chat   received[gen.CreateChatCompletionRequest]
	files  received[gen.ListFilesParams]
	upload received[uploaded]
	// pause, when set, is the silence between two streamed chunks.
	pause time.Duration
}

const chatAnswer = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-2024-08-06",
"choices":[{"index":0,"message":{"role":"assistant","content":"Paris","refusal":null},"finish_reason":"stop","logprobs":null}],
"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}`

var chatChunks = []string{
	`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1700000001,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Pa"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1700000001,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"ris"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1700000001,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
}

const filesAnswer = `{"object":"list","data":[{"id":"file-2","object":"file","bytes":5,"created_at":1700000000,
"filename":"a.jsonl","purpose":"assistants","status":"processed"}],"first_id":"file-2","last_id":"file-2","has_more":false}`

const fileAnswer = `{"id":"file-3","object":"file","bytes":11,"created_at":1700000002,"filename":"notes.jsonl",
"purpose":"assistants","status":"uploaded"}`

func decodeFixture[T any](s string) (*T, error) {
	v := new(T)
	return v, json.Unmarshal([]byte(s), v)
}

func (h *openaiHandler) CreateChatCompletion(ctx context.Context, body gen.CreateChatCompletionRequest) (*gen.CreateChatCompletionResponse, error) {
	h.chat.set(body)
	return decodeFixture[gen.CreateChatCompletionResponse](chatAnswer)
}

func (h *openaiHandler) CreateChatCompletionStream(ctx context.Context, body gen.CreateChatCompletionRequest, stream *idemsrv.Stream[gen.CreateChatCompletionStreamResponse]) error {
	h.chat.set(body)
	for _, c := range chatChunks {
		v, err := decodeFixture[gen.CreateChatCompletionStreamResponse](c)
		if err != nil {
			return err
		}
		if err := stream.Send(*v); err != nil {
			return err
		}
		if h.pause > 0 {
			select {
			case <-time.After(h.pause):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

func (h *openaiHandler) ListFiles(ctx context.Context, params gen.ListFilesParams) (*gen.ListFilesResponse, error) {
	h.files.set(params)
	return decodeFixture[gen.ListFilesResponse](filesAnswer)
}

func (h *openaiHandler) CreateFile(ctx context.Context, body gen.CreateFileRequest) (*gen.OpenAiFile, error) {
	b, err := io.ReadAll(body.File.Content)
	if err != nil {
		return nil, err
	}
	h.upload.set(uploaded{body.File.Name, body.File.ContentType, string(b), string(body.Purpose)})
	return decodeFixture[gen.OpenAiFile](fileAnswer)
}

// openaiClient serves h through the generated server under /v1 and returns
// openai-go pointed at it, without retries (a failure shows at once).
func openaiClient(t *testing.T, h gen.Handler) (oai.Client, *recorder) {
	srv, err := gen.NewServer(h)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	url := serve(t, "/v1", rec.wrap(srv))
	return oai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)), rec
}

var chatParams = oai.ChatCompletionNewParams{
	Model: oai.ChatModelGPT4o,
	Messages: []oai.ChatCompletionMessageParamUnion{
		oai.SystemMessage("Answer in one word."),
		oai.UserMessage("Capital of France?"),
	},
	Temperature:         oai.Float(0.25),
	MaxCompletionTokens: oai.Int(16),
	Seed:                oai.Int(7),
	Metadata:            shared.Metadata{"run": "sdkjudge", "case": "chat"},
	Stop:                oai.ChatCompletionNewParamsStopUnion{OfString: oai.String("\n")},
}

// checkChatReceived: the handler's body, encoded again, is the JSON
// openai-go sent, and the members the SDK set read back typed.
func checkChatReceived(t *testing.T, h *openaiHandler, rec *recorder) {
	t.Helper()
	got, n := h.chat.get()
	if n != 1 {
		t.Fatalf("the handler ran %d times", n)
	}
	sent, _ := rec.last()
	jsonEqual(t, "sent and received bodies", sent, mustJSON(t, got))
	if temp, _ := got.Temperature.Get(); temp != 0.25 || len(got.Messages) != 2 {
		t.Errorf("temperature %v, %d messages", temp, len(got.Messages))
	}
	if md, _ := got.Metadata.Get(); len(md) != 2 || md["run"] != "sdkjudge" {
		t.Errorf("metadata %v", md)
	}
}

func TestOpenAIChatCompletion(t *testing.T) {
	h := &openaiHandler{}
	c, rec := openaiClient(t, h)
	res, err := c.Chat.Completions.New(context.Background(), chatParams)
	if err != nil {
		t.Fatal(err)
	}
	checkChatReceived(t, h, rec)
	jsonEqual(t, "fixture and decoded answer", []byte(chatAnswer), []byte(res.RawJSON()))
	if res.Choices[0].Message.Content != "Paris" || res.Usage.TotalTokens != 13 || res.Model != "gpt-4o-2024-08-06" {
		t.Errorf("decoded %+v", res)
	}
}

func TestOpenAIChatCompletionStreaming(t *testing.T) {
	h := &openaiHandler{}
	c, rec := openaiClient(t, h)
	stream := c.Chat.Completions.NewStreaming(context.Background(), chatParams)
	acc := oai.ChatCompletionAccumulator{}
	var raws []string
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		raws = append(raws, chunk.RawJSON())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	checkChatReceived(t, h, rec)
	if len(raws) != len(chatChunks) {
		t.Fatalf("the SDK read %d chunks, the handler sent %d: %q", len(raws), len(chatChunks), raws)
	}
	for i := range raws {
		jsonEqual(t, "sent and read chunk", []byte(chatChunks[i]), []byte(raws[i]))
	}
	if len(acc.Choices) != 1 || acc.Choices[0].Message.Content != "Paris" || acc.Choices[0].FinishReason != "stop" {
		t.Errorf("accumulated %+v", acc.ChatCompletion)
	}
}

// wireTap is a transport that keeps the raw bytes of the response bodies
// the SDK reads.
type wireTap struct {
	mu  sync.Mutex
	raw bytes.Buffer
}

func (w *wireTap) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = &tapBody{ReadCloser: resp.Body, tap: w}
	}
	return resp, err
}

func (w *wireTap) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.raw.String()
}

type tapBody struct {
	io.ReadCloser
	tap *wireTap
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.tap.mu.Lock()
	b.tap.raw.Write(p[:n])
	b.tap.mu.Unlock()
	return n, err
}

// TestOpenAIStreamingThroughKeepAlives: openai-go reads a stream whose
// handler pauses between chunks long enough for the server's keep-alive
// comments to go out between them, and gets every chunk, nothing more.
func TestOpenAIStreamingThroughKeepAlives(t *testing.T) {
	h := &openaiHandler{pause: 150 * time.Millisecond}
	srv, err := gen.NewServer(h, idemsrv.WithStreamKeepAlive(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	tap := &wireTap{}
	c := oai.NewClient(option.WithBaseURL(serve(t, "/v1", srv)+"/v1"), option.WithAPIKey("sk-test"),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: tap}))
	stream := c.Chat.Completions.NewStreaming(context.Background(), chatParams)
	acc := oai.ChatCompletionAccumulator{}
	n := 0
	for stream.Next() {
		acc.AddChunk(stream.Current())
		n++
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(chatChunks) || len(acc.Choices) != 1 || acc.Choices[0].Message.Content != "Paris" {
		t.Errorf("%d chunks, accumulated %+v", n, acc.ChatCompletion)
	}
	if !strings.Contains(tap.String(), ": keep-alive") {
		t.Errorf("no keep-alive on the wire: %q", tap.String())
	}
}

func TestOpenAIListFiles(t *testing.T) {
	h := &openaiHandler{}
	c, _ := openaiClient(t, h)
	page, err := c.Files.List(context.Background(), oai.FileListParams{
		Limit: oai.Int(2), After: oai.String("file-1"), Order: oai.FileListParamsOrderAsc, Purpose: oai.String("assistants"),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := h.files.get()
	if got.Limit == nil || *got.Limit != 2 || got.After == nil || *got.After != "file-1" ||
		got.Order == nil || string(*got.Order) != "asc" || got.Purpose == nil || *got.Purpose != "assistants" {
		t.Errorf("received %+v", got)
	}
	jsonEqual(t, "fixture and decoded page", []byte(filesAnswer), []byte(page.RawJSON()))
	if len(page.Data) != 1 || page.Data[0].ID != "file-2" || page.HasMore {
		t.Errorf("decoded %+v", page)
	}
}

func TestOpenAIUploadFile(t *testing.T) {
	h := &openaiHandler{}
	c, _ := openaiClient(t, h)
	content := `{"a":1}` + "\n"
	res, err := c.Files.New(context.Background(), oai.FileNewParams{
		File:    oai.File(strings.NewReader(content), "notes.jsonl", "application/jsonl"),
		Purpose: oai.FilePurposeAssistants,
	})
	if err != nil {
		t.Fatal(err)
	}
	got, n := h.upload.get()
	want := uploaded{"notes.jsonl", "application/jsonl", content, "assistants"}
	if n != 1 || got != want {
		t.Errorf("received %+v (%d calls), want %+v", got, n, want)
	}
	jsonEqual(t, "fixture and decoded file", []byte(fileAnswer), []byte(res.RawJSON()))
	if res.ID != "file-3" || res.Filename != "notes.jsonl" {
		t.Errorf("decoded %+v", res)
	}
}

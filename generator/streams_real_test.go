package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	idemparser "github.com/idemgen/idemgen/parser"
)

// clientMethods maps each method of the generated Client to its first
// result type, as written ("*idemrt.Stream[Event]").
func clientMethods(t *testing.T, files []File) map[string]string {
	t.Helper()
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		af, err := parser.ParseFile(fset, f.Name, f.Content, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Type.Results == nil || len(fd.Type.Results.List) == 0 {
				continue
			}
			if types.ExprString(fd.Recv.List[0].Type) == "*Client" {
				out[fd.Name.Name] = types.ExprString(fd.Type.Results.List[0].Type)
			}
		}
	}
	return out
}

// streamCounts counts the methods returning a stream and a download.
func streamCounts(methods map[string]string) (streams, downloads int) {
	for _, typ := range methods {
		switch {
		case strings.HasPrefix(typ, "*idemrt.Stream["):
			streams++
		case typ == "*idemrt.Body":
			downloads++
		}
	}
	return streams, downloads
}

// TestRealSpecsStreamsAndDownloads generates the real-world clients and
// checks the methods their documents call for: OpenAI's chat completion
// streams its chunks beside the JSON answer, its speech is a download with
// a stream beside it. It logs how many stream and download methods each
// client has.
func TestRealSpecsStreamsAndDownloads(t *testing.T) {
	dir := testutil.RealSpecs(t, "generates the real-world specs")
	want := map[string]map[string]string{
		"openai.yaml": {
			"CreateChatCompletion":       "*CreateChatCompletionResponse",
			"CreateChatCompletionStream": "*idemrt.Stream[CreateChatCompletionStreamResponse]",
			"CreateResponseStream":       "*idemrt.Stream[ResponseStreamEvent]",
			"CreateSpeech":               "*idemrt.Body",
			"CreateSpeechStream":         "*idemrt.Stream[CreateSpeechResponseStreamEvent]",
		},
		"stripe-spec3-2023-09.yaml": {"GetQuotesQuotePdf": "*idemrt.Body"},
	}
	for _, name := range []string{"openai.yaml", "github-api.json", "stripe-spec3-2023-09.yaml", "discord.json", "twilio-api-v2010.yaml"} {
		api, diags, err := idemparser.Load(filepath.Join(dir, name), idemparser.Options{})
		if err != nil || diags.HasErrors() {
			t.Errorf("%s: load: %v %v", name, err, diags.Errors())
			continue
		}
		out, err := Generate(api, Config{Package: "x"})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		methods := clientMethods(t, out.Files)
		for m, typ := range want[name] {
			if methods[m] != typ {
				t.Errorf("%s: %s returns %q, want %q", name, m, methods[m], typ)
			}
		}
		streams, downloads := streamCounts(methods)
		t.Log(fmt.Sprintf("%s: %d methods, %d return streams, %d return downloads", name, len(methods), streams, downloads))
	}
}

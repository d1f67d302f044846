package mock

// The "both ends agree" half of the conformance harness: the same temporary
// module, generated with the server, also holds an echo Handler, and the
// harness program sends every served operation from the generated client
// to the generated server on 127.0.0.1. The handler records what it
// received and answers a schema-built value; the harness compares what the
// caller passed with what the handler received, and what the handler
// returned with what the client decoded (echoHarnessSource says how).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ir"
)

// echoResult is what the harness saw for one operation sent to the server.
type echoResult struct {
	Op      string `json:"op"`
	Outcome string `json:"outcome"` // equal, mismatch, error, build
	Detail  string `json:"detail,omitempty"`
}

// echoCounts are one document's echo figures.
type echoCounts struct {
	Served, Equal, Mismatched, Skipped int
}

// gapRE reads one "Method (why)" of the Handler's "Not served yet" list.
var gapRE = regexp.MustCompile(`(\w+) \(([^()]*)\)`)

// handlerMethods reads the Handler interface of server_gen.go: the served
// methods, and the operations answered 501 with the reason its doc comment
// gives. echoSource is the echo Handler for it, a file of the same package.
func handlerMethods(src []byte) (served map[string]bool, gaps map[string]string, echoSource []byte, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "server_gen.go", src, parser.ParseComments)
	if err != nil {
		return nil, nil, nil, err
	}
	var iface *ast.InterfaceType
	var doc string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			if ts := s.(*ast.TypeSpec); ts.Name.Name == "Handler" {
				iface, _ = ts.Type.(*ast.InterfaceType)
				doc = gd.Doc.Text()
			}
		}
	}
	if iface == nil {
		return nil, nil, nil, fmt.Errorf("server_gen.go has no Handler interface")
	}
	gaps = map[string]string{}
	if _, list, ok := strings.Cut(strings.Join(strings.Fields(doc), " "), "Not served yet, answered 501: "); ok {
		for _, m := range gapRE.FindAllStringSubmatch(list, -1) {
			gaps[m[1]] = m[2]
		}
	}
	served = map[string]bool{}
	for _, m := range iface.Methods.List {
		served[m.Names[0].Name] = true
	}
	echoSource, err = echoHandlerSource(fset, f, iface)
	return served, gaps, echoSource, err
}

// echoHandlerSource writes ZzEcho, a Handler whose every method hands its
// arguments (the context excepted) to the harness's Saw hook and answers
// what its Answer hook fills in. Go cannot implement an interface at run
// time, so the methods are written from the interface's own declarations.
func echoHandlerSource(fset *token.FileSet, f *ast.File, iface *ast.InterfaceType) ([]byte, error) {
	var b bytes.Buffer
	used := map[string]bool{}
	node := func(n ast.Node) string {
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					used[id.Name] = true
				}
			}
			return true
		})
		var s bytes.Buffer
		format.Node(&s, fset, n)
		return s.String()
	}
	streams := false
	for _, m := range iface.Methods.List {
		name := m.Names[0].Name
		ft := m.Type.(*ast.FuncType)
		var params, args []string
		stream := ""
		for _, p := range ft.Params.List {
			for range max(1, len(p.Names)) {
				a := "a" + strconv.Itoa(len(params))
				typ := node(p.Type)
				params = append(params, a+" "+typ)
				switch {
				case strings.HasPrefix(typ, "*idemsrv.Stream["):
					stream = a // the other end of the stream, not an argument
				case len(params) > 1: // the context is not echoed
					args = append(args, a)
				}
			}
		}
		streams = streams || stream != ""
		fmt.Fprintf(&b, "\nfunc (e *ZzEcho) %s(%s) ", name, strings.Join(params, ", "))
		call := strings.Join(append([]string{"e", "a0", strconv.Quote(name)}, args...), ", ")
		switch {
		case stream != "":
			fmt.Fprintf(&b, "error {\n\te.Saw(%s)\n\treturn zzEchoStream(e, %q, %s)\n}\n", call[len("e, a0, "):], name, stream)
		case len(ft.Results.List) == 1:
			fmt.Fprintf(&b, "error {\n\te.Saw(%s)\n\treturn e.Answer(a0, %q, nil)\n}\n", call[len("e, a0, "):], name)
		default:
			res := node(ft.Results.List[0].Type)
			fmt.Fprintf(&b, "(%s, error) {\n\treturn zzEchoAnswer[%s](%s)\n}\n", res, res, call)
		}
	}
	imports := []string{`"context"`}
	head := echoHandlerHead
	if streams {
		imports = append(imports, `"errors"`, `"strconv"`)
		used["idemsrv"] = true
		head += echoStreamHead
	}
	for _, is := range f.Imports {
		path, _ := strconv.Unquote(is.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if is.Name != nil {
			name = is.Name.Name
		}
		if used[name] && name != "context" {
			imports = append(imports, name+" "+is.Path.Value)
		}
	}
	sort.Strings(imports)
	src := "// Code written by the conformance harness: the echo Handler.\n\npackage " + f.Name.Name +
		"\n\nimport (\n" + strings.Join(imports, "\n") + "\n)\n" + head + b.String()
	return format.Source([]byte(src))
}

const echoHandlerHead = `
// ZzEcho is a Handler that reports what it receives and answers what the
// harness gives it: Answer fills a result, Events a stream's events.
type ZzEcho struct {
	Saw    func(op string, args ...any)
	Answer func(ctx context.Context, op string, out any) error
	Events func(op string, out any) error
}

var _ Handler = (*ZzEcho)(nil)

func zzEchoAnswer[R any](e *ZzEcho, ctx context.Context, op string, args ...any) (R, error) {
	e.Saw(op, args...)
	var out R
	err := e.Answer(ctx, op, &out)
	return out, err
}
`

// echoStreamHead sends a stream's events, numbered by SSE ids from 1 on an
// event stream (the other framings carry data alone).
const echoStreamHead = `
func zzEchoStream[T any](e *ZzEcho, op string, s *idemsrv.Stream[T]) error {
	var events []T
	if err := e.Events(op, &events); err != nil {
		return err
	}
	for i, ev := range events {
		err := s.SendEvent(idemsrv.EventFields{ID: strconv.Itoa(i + 1)}, ev)
		if errors.Is(err, idemsrv.ErrNotEventStream) {
			err = s.Send(ev)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
`

// echoAnswer fills what the handler of one call returns: the body of the
// first 2xx response with a declared code and a body (else the first 2xx,
// else the first 3xx: an operation answering a redirect) built from its
// schema, that status, and its declared headers, by Go field name.
func echoAnswer(c *confCall, op *ir.Operation, rt *route) {
	var resp *ir.Response
	for _, lo := range []int{200, 300} {
		for _, r := range op.Responses {
			if r.Status >= lo && r.Status < lo+100 && (resp == nil || len(resp.Content) == 0 && len(r.Content) > 0) {
				resp = r
			}
		}
		if resp != nil {
			break
		}
	}
	if resp == nil {
		return
	}
	c.Status = resp.Status
	kr := rt.op.Responses.Status(resp.Status)
	if kr == nil || kr.Value == nil {
		return
	}
	g := &valueBuilder{response: true}
	if mt, media := clientMedia(kr.Value.Content); media != nil && media.Schema != nil {
		v := g.value(media.Schema)
		c.Result, _ = json.Marshal(v)
		if base := mediaBase(mt); !isJSON(base) {
			c.ResultRaw = encode(base, v, media)
		}
	}
	c.Headers = map[string]json.RawMessage{}
	for _, h := range resp.Headers {
		if measuredHeader(h.Name) {
			c.Measured = append(c.Measured, h.GoName)
			continue
		}
		kh := kr.Value.Headers[h.Name]
		if kh == nil {
			for name, v := range kr.Value.Headers {
				if strings.EqualFold(name, h.Name) {
					kh = v
				}
			}
		}
		if kh != nil && kh.Value != nil && kh.Value.Schema != nil {
			c.Headers[h.GoName], _ = json.Marshal(g.value(kh.Value.Schema))
		}
	}
}

// measuredHeader reports whether a response header is the HTTP layer's
// (net/http measures the body; the server writes the media type it
// encodes): a handler's value for it never travels.
func measuredHeader(name string) bool {
	for _, h := range []string{"Content-Length", "Transfer-Encoding", "Content-Type"} {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// echoKey names the params field of op's idempotency key (the generator
// reserves IdempotencyKey for it), which the echo call fills in itself so
// that the handler's params can be compared whole.
func echoKey(op *ir.Operation) string {
	if op.Retry.Safety == ir.Keyed {
		return "IdempotencyKey"
	}
	return ""
}

// reportEcho logs one document's echo figures and fails on every
// disagreement, naming the operation and the first differing field.
func reportEcho(t *testing.T, calls []confCall, results []echoResult, gaps map[string]string) echoCounts {
	var c echoCounts
	byOp := map[string]string{}
	for _, cl := range calls {
		byOp[cl.Op] = cl.Method
	}
	for _, r := range results {
		c.Served++
		switch r.Outcome {
		case "equal":
			c.Equal++
		default:
			c.Mismatched++
			t.Errorf("%s (%s): client and server disagree (%s): %s", r.Op, byOp[r.Op], r.Outcome, r.Detail)
		}
	}
	names := make([]string, 0, len(gaps))
	for m := range gaps {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		t.Logf("echo: %s skipped, answered 501: %s", m, gaps[m])
	}
	c.Skipped = len(gaps)
	t.Logf("echo: %d served, %d echoed equal, %d mismatched, %d skipped (501)", c.Served, c.Equal, c.Mismatched, c.Skipped)
	return c
}

// echoCall marks a call for the echo run when the server serves it.
func echoCall(c *confCall, op *ir.Operation, rt *route, served map[string]bool) {
	if !served[op.GoName] {
		return
	}
	c.Echo = true
	c.Key = echoKey(op)
	if rb := rt.op.RequestBody; rb != nil && rb.Value != nil {
		mt, _ := clientMedia(rb.Value.Content)
		c.Form = mediaBase(mt) == "application/x-www-form-urlencoded"
	}
	echoAnswer(c, op, rt)
	echoStream(c, op, rt, served)
	echoDownload(c, op, rt)
	echoParts(c, op)
}

// writeEcho adds the echo Handler beside server_gen.go and the harness's
// echo.go, and returns the served methods and the ones answered 501.
func writeEcho(t *testing.T, dir string) (served map[string]bool, gaps map[string]string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "client", "server_gen.go"))
	if err != nil {
		t.Fatalf("the server was not generated: %v", err)
	}
	served, gaps, echo, err := handlerMethods(src)
	if err != nil {
		t.Fatalf("echo handler: %v", err)
	}
	writeFile(t, filepath.Join(dir, "client", "zz_echo.go"), echo)
	writeFile(t, filepath.Join(dir, "echo.go"), []byte(echoHarnessSource))
	writeFile(t, filepath.Join(dir, "echo_media.go"), []byte(echoMediaSource))
	writeFile(t, filepath.Join(dir, "echo_diff.go"), []byte(echoDiffSource))
	writeFile(t, filepath.Join(dir, "judge.go"), []byte(echoJudgeSource))
	return served, gaps
}

// vetServer runs go vet on the generated package, server included; the
// harness run has already compiled it, so vet pays for type-checking only.
func vetServer(t *testing.T, ctx context.Context, env []string, dir string) {
	t.Helper()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "vet", "./client")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet of the generated client and server: %v\n%s", err, trunc(string(out)))
	}
	t.Logf("go vet ./client: %v", time.Since(start).Round(time.Millisecond))
}

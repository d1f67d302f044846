package mock

// The conformance harness of issue 15: for every document of testdata/specs
// and ../shared/specs, generate the client into a temporary module, call
// every operation with values built from the schemas against the mock, and
// count what the mock accepted, what it rejected (with the reason), and the
// answers the client could not decode. Skipped under -short (it compiles
// every client). It fails when a client does not compile or the harness
// breaks; rejections and decode failures are generator findings, reported
// as counts, and fail the test only with IDEMGEN_CONFORMANCE_STRICT=1.
// The same program, compiled once, also runs the "both ends agree" check
// of echo_test.go against the generated server, whose disagreements
// always fail the test.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/internal/testutil"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// confCall is one operation call of the plan the harness program runs.
type confCall struct {
	Op     string                     `json:"op"`
	Method string                     `json:"method"`
	Body   json.RawMessage            `json:"body,omitempty"`
	Raw    []byte                     `json:"raw,omitempty"` // the body encoded, for io.Reader and []byte bodies
	Params map[string]json.RawMessage `json:"params,omitempty"`
	// Echo: the call is also sent to the generated server (echo_test.go),
	// with the key field Key set, and the handler answers Status, Result
	// (the body) and Headers (by Go field name).
	Echo    bool                       `json:"echo,omitempty"`
	Key     string                     `json:"key,omitempty"`
	Status  int                        `json:"status,omitempty"`
	Result  json.RawMessage            `json:"result,omitempty"`
	Headers map[string]json.RawMessage `json:"headers,omitempty"`
	// ResultRaw is the body encoded, for a result that is text or bytes;
	// Measured are the result's header fields the HTTP layer sets.
	ResultRaw []byte   `json:"resultRaw,omitempty"`
	Measured  []string `json:"measured,omitempty"`
	Form      bool     `json:"form,omitempty"` // the body is a form
	// The answers that are not one decoded value (echo_media_test.go):
	// a stream's events, sent with SSE ids when SSE is set, through
	// StreamMethod too when the operation also answers plainly; a
	// download's DownloadType (its bytes are ResultRaw); the declared part
	// types of a multipart body, and whether its first file goes without.
	Events       []json.RawMessage `json:"events,omitempty"`
	SSE          bool              `json:"sse,omitempty"`
	StreamMethod string            `json:"streamMethod,omitempty"`
	DownloadType string            `json:"downloadType,omitempty"`
	PartTypes    map[string]string `json:"partTypes,omitempty"`
	BareFile     bool              `json:"bareFile,omitempty"`
}

type confScheme struct {
	Name, Type, Scheme, In, Param string
}

type confPlan struct {
	URL     string       `json:"url"`
	Schemes []confScheme `json:"schemes"`
	Calls   []confCall   `json:"calls"`
	// Prism is the command that runs Stoplight Prism, when the echo calls
	// are also judged by it (echo_judge_test.go); Spec is the document.
	Prism []string `json:"prism,omitempty"`
	Spec  string   `json:"spec,omitempty"`
}

// confResult is what the harness saw for one call.
type confResult struct {
	Op      string `json:"op"`
	Outcome string `json:"outcome"` // ok, status, error, build, missing, panic
	Status  int    `json:"status,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// confCounts are one document's figures.
type confCounts struct {
	Operations, Generated, Sent, Accepted, Rejected, Undecodable, Unbuildable, Other int
	Reasons                                                                          map[string]int
	Echo                                                                             echoCounts
	Judged                                                                           judgeCounts
}

// strictDocument reports whether a document's findings fail the test: our
// own documents hold one case per defect found so far, so they must
// round-trip always and a regression fails CI; the real ones only with
// IDEMGEN_CONFORMANCE_STRICT=1.
func strictDocument(path string) bool {
	return os.Getenv("IDEMGEN_CONFORMANCE_STRICT") == "1" || strings.Contains(filepath.ToSlash(path), "testdata/specs/")
}

func TestConformanceOfGeneratedClients(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a client per document; run without -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := testutil.ModuleRoot(t)
	all := answerSpecs(t)
	var mu sync.Mutex
	summary := map[string]confCounts{}
	for _, path := range all {
		name := filepath.Base(path)
		if strings.Contains(path, "multifile") {
			name = "multifile/api.yaml"
		}
		t.Run(name, func(t *testing.T) {
			c := conformance(t, root, path)
			mu.Lock()
			summary[name] = c
			mu.Unlock()
		})
	}
	names := make([]string, 0, len(summary))
	for n := range summary {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "\n| document | operations | generated | sent | accepted | rejected | undecodable | not buildable | other "+
		"| served | echoed equal | mismatched | skipped (501) | judged by Prism | with violations |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range names {
		c, e, j := summary[n], summary[n].Echo, summary[n].Judged
		judged, violated := fmt.Sprint(j.Judged), fmt.Sprint(j.Violated)
		if j.NotRun {
			judged, violated = "not run", "-"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s |\n", n, c.Operations, c.Generated, c.Sent,
			c.Accepted, c.Rejected, c.Undecodable, c.Unbuildable, c.Other, e.Served, e.Equal, e.Mismatched, e.Skipped, judged, violated)
	}
	t.Log(b.String())
}

var logLineRE = regexp.MustCompile(`op="([^"]*)".* status=(\S+) validation="((?:[^"\\]|\\.)*)"`)

// opLog collects the mock's verdict per operation from its log lines.
type opLog struct {
	mu      sync.Mutex
	partial []byte
	verdict map[string][]string // op -> "status validation"
}

func (l *opLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := string(l.partial[:i])
		l.partial = l.partial[i+1:]
		if m := logLineRE.FindStringSubmatch(line); m != nil {
			l.verdict[m[1]] = append(l.verdict[m[1]], m[2]+" "+m[3])
		}
	}
	return len(p), nil
}

func conformance(t *testing.T, root, path string) confCounts {
	counts := confCounts{Reasons: map[string]int{}}
	api, diags, err := parser.Load(path, parser.Options{})
	if err != nil || diags.HasErrors() {
		t.Skipf("the parser refuses the document: %v %v", err, diags.Errors())
	}
	counts.Operations = len(api.Operations)
	out, err := generator.Generate(api, generator.Config{Package: "client", SkipUnsupported: true, Server: true})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	skipped := map[string]bool{}
	for _, d := range out.Skipped {
		skipped[d.Operation] = true
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "client", "x"), nil)
	for _, f := range out.Files {
		writeFile(t, filepath.Join(dir, "client", f.Name), f.Content)
	}
	gomod := "module conformance\n\ngo 1.26.0\n\nrequire github.com/idemgen/idemgen v0.0.0\n\n" + testutil.LocalReplaces(root)
	writeFile(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), sum)
	writeFile(t, filepath.Join(dir, "main.go"), []byte(harnessSource))
	os.Remove(filepath.Join(dir, "client", "x"))
	served, gaps := writeEcho(t, dir)

	log := &opLog{verdict: map[string][]string{}}
	m, err := New(path, Options{Log: log})
	if err != nil {
		t.Fatalf("mock: %v", err)
	}
	defer m.Close()
	hs := httptest.NewServer(m)
	defer hs.Close()

	plan := confPlan{URL: hs.URL}
	for _, s := range api.SecuritySchemes {
		plan.Schemes = append(plan.Schemes, confScheme{Name: s.Name, Type: s.Type, Scheme: s.Scheme, In: string(s.In), Param: s.ParamName})
	}
	routeOf := map[string]*route{}
	for _, r := range m.routes {
		// The client's path has no "#…" suffix (the parser strips it); two
		// keys that differ only there are told apart by operation.
		path, _, _ := strings.Cut(r.path, "#")
		routeOf[r.method+" "+path] = r
		routeOf[r.method+" "+path+" "+r.id] = r
	}
	for _, op := range api.Operations {
		if skipped[op.ID] {
			continue
		}
		key := op.Method + " " + op.Path
		if op.Query != "" {
			key += "?" + op.Query
		}
		rt := routeOf[key+" "+op.ID]
		if rt == nil {
			rt = routeOf[key]
		}
		if rt == nil {
			t.Errorf("%s %s: the mock has no route", op.Method, op.Path)
			continue
		}
		counts.Generated++
		c := buildCall(op, rt)
		echoCall(&c, op, rt, served)
		plan.Calls = append(plan.Calls, c)
	}
	markBareFile(plan.Calls)
	plan.Prism, plan.Spec = prismFor(t, path)
	planJSON, _ := json.Marshal(plan)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	cmd.Stdin = bytes.NewReader(planJSON)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the harness with the generated client failed (a client that does not compile is a generator bug): %v\n%s", err, trunc(stderr.String()))
	}
	var output struct {
		Results []confResult  `json:"results"`
		Echo    []echoResult  `json:"echo"`
		Judged  []judgeResult `json:"judged"`
	}
	err = json.Unmarshal(stdout.Bytes(), &output)
	results := output.Results
	if err != nil || len(results) != len(plan.Calls) {
		t.Fatalf("harness output (%d results for %d calls): %v\n%s", len(results), len(plan.Calls), err, trunc(stdout.String()))
	}
	counts.Echo = reportEcho(t, plan.Calls, output.Echo, gaps)
	counts.Judged = reportJudged(t, plan, output.Judged, strictDocument(path))
	vetServer(t, ctx, cmd.Env, dir)
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, r := range results {
		verdicts := log.verdict[r.Op]
		switch r.Outcome {
		case "build", "missing", "panic":
			counts.Unbuildable++
			counts.Reasons["not buildable: "+r.Detail]++
			t.Logf("%s: %s: %s", r.Op, r.Outcome, r.Detail)
			continue
		}
		if len(verdicts) == 0 {
			counts.Other++
			counts.Reasons["never reached the mock: "+firstWords(r.Detail)]++
			t.Logf("%s: never reached the mock: %s", r.Op, r.Detail)
			continue
		}
		counts.Sent++
		v := verdicts[len(verdicts)-1]
		status, validation, _ := strings.Cut(v, " ")
		switch {
		case validation != "ok":
			counts.Rejected++
			counts.Reasons["rejected: "+reasonClass(validation)]++
			t.Logf("%s: rejected %s: %s", r.Op, status, validation)
		case r.Outcome == "ok" || r.Outcome == "status":
			counts.Accepted++
		default:
			counts.Accepted++
			counts.Undecodable++
			counts.Reasons["undecodable: "+firstWords(r.Detail)]++
			t.Logf("%s: the client could not decode the %s answer: %s", r.Op, status, r.Detail)
		}
	}
	t.Logf("%d operations, %d generated, %d sent: %d accepted, %d rejected, %d undecodable, %d not buildable, %d other",
		counts.Operations, counts.Generated, counts.Sent, counts.Accepted, counts.Rejected, counts.Undecodable, counts.Unbuildable, counts.Other)
	keys := make([]string, 0, len(counts.Reasons))
	for k := range counts.Reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %4d  %s", counts.Reasons[k], k)
	}
	if strictDocument(path) && counts.Accepted-counts.Undecodable != counts.Generated {
		t.Errorf("strict: %d of %d operations did not round-trip", counts.Generated-(counts.Accepted-counts.Undecodable), counts.Generated)
	}
	return counts
}

// buildCall makes the values of one call from the schemas: the JSON body
// and every parameter the client takes (the key header excepted: the client
// makes it).
func buildCall(op *ir.Operation, rt *route) confCall {
	g := &valueBuilder{}
	c := confCall{Op: rt.id, Method: op.GoName, Params: map[string]json.RawMessage{}}
	if rb := rt.op.RequestBody; rb != nil && rb.Value != nil {
		mt, media := clientMedia(rb.Value.Content)
		if media != nil {
			g.form = mediaBase(mt) == "application/x-www-form-urlencoded"
			v := g.value(media.Schema)
			g.form = false
			c.Body, _ = json.Marshal(v)
			switch base := mediaBase(mt); {
			case isJSON(base):
				c.Raw = c.Body
			case base == "application/x-www-form-urlencoded":
				q := url.Values{}
				encodeForm(v, "", q)
				c.Raw = []byte(q.Encode())
			default:
				c.Raw = encode(base, v, media)
			}
		}
	}
	kparams := map[string]*openapi3.Parameter{}
	for _, p := range params(rt.item, rt.op) {
		kparams[p.In+" "+p.Name] = p
	}
	for _, p := range op.Params {
		if strings.EqualFold(p.Name, rt.key) && string(p.In) == "header" {
			continue
		}
		var v any = "value"
		if strings.EqualFold(p.Name, "If-Match") && string(p.In) == "header" {
			v = "*"
		} else if kp := kparams[string(p.In)+" "+p.Name]; kp != nil {
			if kp.Schema != nil {
				v = g.value(kp.Schema)
			} else {
				for _, m := range kp.Content {
					v = g.value(m.Schema)
					break
				}
			}
		}
		c.Params[p.GoName], _ = json.Marshal(v)
	}
	return c
}

// clientMedia is the media type a generated client sends (docs/generator.md):
// JSON, then a form, then multipart, then text, then the first.
func clientMedia(content openapi3.Content) (string, *openapi3.MediaType) {
	keys := sortedKeys(content)
	for _, want := range []func(string) bool{
		isJSON,
		func(mt string) bool { return mt == "application/x-www-form-urlencoded" },
		func(mt string) bool { return mt == "multipart/form-data" },
		func(mt string) bool { return strings.HasPrefix(mt, "text/") },
		func(string) bool { return true },
	} {
		for _, k := range keys {
			if want(mediaBase(k)) {
				return k, content[k]
			}
		}
	}
	return "", nil
}

// encodeForm writes v the way form-decoding servers read it: a[b]=v,
// a[0][c]=v.
func encodeForm(v any, prefix string, q url.Values) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			key := k
			if prefix != "" {
				key = prefix + "[" + k + "]"
			}
			encodeForm(x[k], key, q)
		}
	case []any:
		for i, e := range x {
			encodeForm(e, fmt.Sprintf("%s[%d]", prefix, i), q)
		}
	case nil:
		q.Add(prefix, "")
	default:
		q.Add(prefix, scalarString(x))
	}
}

func reasonClass(validation string) string {
	// "body /items/0/x: reason" -> "body: reason"
	where, reason, ok := strings.Cut(validation, ": ")
	if !ok {
		return validation
	}
	f := strings.Fields(where)
	if len(f) > 0 && (f[0] == "query" || f[0] == "header" || f[0] == "path" || f[0] == "cookie") && len(f) > 1 {
		return f[0] + " " + f[1] + ": " + firstWords(reason)
	}
	if len(f) > 0 {
		return f[0] + ": " + firstWords(reason)
	}
	return firstWords(reason)
}

func firstWords(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if data == nil {
		return
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// harnessSource calls every operation of the plan through the generated
// client by reflection: the context, the body decoded from JSON into the
// method's body type, the params struct's fields decoded one by one.
const harnessSource = `package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"

	api "conformance/client"
	idemrt "github.com/idemgen/idemgen/runtime"
)

type call struct {
	Op     string                     ` + "`json:\"op\"`" + `
	Method string                     ` + "`json:\"method\"`" + `
	Body   json.RawMessage            ` + "`json:\"body\"`" + `
	Raw    []byte                     ` + "`json:\"raw\"`" + `
	Params map[string]json.RawMessage ` + "`json:\"params\"`" + `
	Echo    bool                       ` + "`json:\"echo\"`" + `
	Key     string                     ` + "`json:\"key\"`" + `
	Status  int                        ` + "`json:\"status\"`" + `
	Result  json.RawMessage            ` + "`json:\"result\"`" + `
	Headers map[string]json.RawMessage ` + "`json:\"headers\"`" + `
	ResultRaw []byte                   ` + "`json:\"resultRaw\"`" + `
	Measured  []string                 ` + "`json:\"measured\"`" + `
	Form      bool                     ` + "`json:\"form\"`" + `
	Events       []json.RawMessage ` + "`json:\"events\"`" + `
	SSE          bool              ` + "`json:\"sse\"`" + `
	StreamMethod string            ` + "`json:\"streamMethod\"`" + `
	DownloadType string            ` + "`json:\"downloadType\"`" + `
	PartTypes    map[string]string ` + "`json:\"partTypes\"`" + `
	BareFile     bool              ` + "`json:\"bareFile\"`" + `
}

type scheme struct{ Name, Type, Scheme, In, Param string }

type plan struct {
	URL     string   ` + "`json:\"url\"`" + `
	Schemes []scheme ` + "`json:\"schemes\"`" + `
	Calls   []call   ` + "`json:\"calls\"`" + `
	Prism   []string ` + "`json:\"prism\"`" + `
	Spec    string   ` + "`json:\"spec\"`" + `
}

type result struct {
	Op      string ` + "`json:\"op\"`" + `
	Outcome string ` + "`json:\"outcome\"`" + `
	Status  int    ` + "`json:\"status,omitempty\"`" + `
	Detail  string ` + "`json:\"detail,omitempty\"`" + `
}

func main() {
	var p plan
	if err := json.NewDecoder(os.Stdin).Decode(&p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	creds := idemrt.WithRequestEditor(func(ctx context.Context, r *http.Request) error {
		op := idemrt.OperationOf(ctx)
		for _, s := range p.Schemes {
			if op == nil || !op.Uses(s.Name) {
				continue
			}
			switch {
			case s.Type == "http" && s.Scheme == "basic":
				r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("user:pass")))
			case s.Type == "http":
				r.Header.Set("Authorization", "Bearer token")
			case s.Type == "apiKey" && s.In == "header":
				r.Header.Set(s.Param, "key")
			case s.Type == "apiKey" && s.In == "query":
				q := r.URL.Query()
				q.Set(s.Param, "key")
				r.URL.RawQuery = q.Encode()
			case s.Type == "apiKey" && s.In == "cookie":
				r.AddCookie(&http.Cookie{Name: s.Param, Value: "key"})
			case s.Type == "oauth2" || s.Type == "openIdConnect":
				r.Header.Set("Authorization", "Bearer token")
			}
		}
		return nil
	})
	c, err := api.NewClient(p.URL, creds, idemrt.NoRetry())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cv := reflect.ValueOf(c)
	results := make([]result, 0, len(p.Calls))
	for _, cl := range p.Calls {
		results = append(results, run(cv, cl))
	}
	json.NewEncoder(os.Stdout).Encode(output{Results: results, Echo: runEcho(p, creds), Judged: runJudged(p, creds)})
}

type output struct {
	Results []result      ` + "`json:\"results\"`" + `
	Echo    []echoResult  ` + "`json:\"echo\"`" + `
	Judged  []judgeResult ` + "`json:\"judged\"`" + `
}

var (
	readerType = reflect.TypeOf((*io.Reader)(nil)).Elem()
	bytesType  = reflect.TypeOf([]byte(nil))
)

var fileType = reflect.TypeOf(idemrt.File{})

// decodeBody decodes the schema-built JSON into the body type; members of
// type idemrt.File (binary multipart parts, which have no JSON form) take
// the JSON string as their content, and the part type partType gives.
func decodeBody(body []byte, v reflect.Value, cl call) error {
	st := v.Elem()
	for st.Kind() == reflect.Pointer {
		if st.IsNil() {
			st.Set(reflect.New(st.Type().Elem()))
		}
		st = st.Elem()
	}
	var members map[string]json.RawMessage
	if st.Kind() != reflect.Struct || json.Unmarshal(body, &members) != nil {
		return json.Unmarshal(body, v.Interface())
	}
	files := map[int]json.RawMessage{}
	for i := range st.NumField() {
		f := st.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		base := f.Type
		for base.Kind() == reflect.Pointer || base.Kind() == reflect.Slice {
			base = base.Elem()
		}
		if raw, ok := members[name]; ok && base == fileType {
			files[i] = raw
			delete(members, name)
		}
	}
	rest, _ := json.Marshal(members)
	if err := json.Unmarshal(rest, v.Interface()); err != nil {
		return err
	}
	first := -1
	for i := range files {
		if first < 0 || i < first {
			first = i
		}
	}
	for i, raw := range files {
		name, _, _ := strings.Cut(st.Type().Field(i).Tag.Get("json"), ",")
		ct := partType(cl, name, i == first)
		if err := setFile(st.Field(i), raw, st.Type().Field(i).Name, ct); err != nil {
			return err
		}
	}
	return nil
}

// partType is the Content-Type the harness gives a file of the part name:
// the one the spec's encoding declares, else text/plain; none for the
// first file of the call marked BareFile.
func partType(cl call, name string, first bool) string {
	switch {
	case cl.BareFile && first:
		return ""
	case cl.PartTypes[name] != "":
		return cl.PartTypes[name]
	}
	return "text/plain"
}

// firstFile is the index of st's first File, *File or []File field that
// is set, or -1.
func firstFile(st reflect.Value) int {
	for i := range st.NumField() {
		f := st.Field(i)
		if (f.Type() == fileType || f.Type() == reflect.PointerTo(fileType) || f.Type() == reflect.SliceOf(fileType)) && !f.IsZero() {
			return i
		}
	}
	return -1
}

// setFile fills a File, *File or []File field from a JSON string or list.
func setFile(f reflect.Value, raw json.RawMessage, name, ct string) error {
	var contents []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		contents = []string{one}
	} else if err := json.Unmarshal(raw, &contents); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	files := make([]idemrt.File, len(contents))
	for i, c := range contents {
		files[i] = idemrt.File{Name: strings.ToLower(name) + ".bin", ContentType: ct, Content: strings.NewReader(c)}
	}
	switch {
	case f.Type() == fileType && len(files) > 0:
		f.Set(reflect.ValueOf(files[0]))
	case f.Type() == reflect.PointerTo(fileType) && len(files) > 0:
		f.Set(reflect.ValueOf(&files[0]))
	case f.Type() == reflect.SliceOf(fileType):
		f.Set(reflect.ValueOf(files))
	}
	return nil
}

func run(cv reflect.Value, cl call) (res result) {
	res.Op = cl.Op
	defer func() {
		if v := recover(); v != nil {
			res.Outcome, res.Detail = "panic", fmt.Sprint(v)
		}
	}()
	args, bad := buildArgs(cv.MethodByName(cl.Method), cl)
	if bad != nil {
		return *bad
	}
	out := cv.MethodByName(cl.Method).Call(args)
	errv := out[len(out)-1]
	if errv.IsNil() {
		return result{Op: cl.Op, Outcome: "ok"}
	}
	err := errv.Interface().(error)
	var se *idemrt.StatusError
	if errors.As(err, &se) {
		return result{Op: cl.Op, Outcome: "status", Status: se.StatusCode, Detail: err.Error()}
	}
	return result{Op: cl.Op, Outcome: "error", Detail: err.Error()}
}

// buildArgs makes the arguments of one call of method m, or says why not.
func buildArgs(m reflect.Value, cl call) ([]reflect.Value, *result) {
	if !m.IsValid() {
		return nil, &result{Op: cl.Op, Outcome: "missing", Detail: "no method " + cl.Method}
	}
	t := m.Type()
	n := t.NumIn()
	if t.IsVariadic() {
		n--
	}
	args := []reflect.Value{reflect.ValueOf(context.Background())}
	for i := 1; i < n; i++ {
		at := t.In(i)
		v := reflect.New(at)
		if at.Kind() == reflect.Struct && strings.HasSuffix(at.Name(), "Params") {
			for name, raw := range cl.Params {
				f := v.Elem().FieldByName(name)
				if !f.IsValid() {
					return nil, &result{Op: cl.Op, Outcome: "build", Detail: at.Name() + " has no field " + name}
				}
				if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
					return nil, &result{Op: cl.Op, Outcome: "build", Detail: at.Name() + "." + name + ": " + err.Error()}
				}
			}
		} else if at == readerType {
			v.Elem().Set(reflect.ValueOf(bytes.NewReader(cl.Raw)))
		} else if at == bytesType {
			v.Elem().SetBytes(cl.Raw)
		} else if len(cl.Body) > 0 {
			if err := decodeBody(cl.Body, v, cl); err != nil {
				return nil, &result{Op: cl.Op, Outcome: "build", Detail: "body " + at.String() + ": " + err.Error()}
			}
		}
		args = append(args, v.Elem())
	}
	return args, nil
}
`

package generator

import (
	"github.com/dave/jennifer/jen"

	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/ir"
)

var blanks = regexp.MustCompile(`[ \t]+`)

func generateFixture(t *testing.T) *Output {
	t.Helper()
	out, err := Generate(fixture(), Config{Package: "fixture"})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return out
}

// fileNamed returns a generated file with runs of blanks squashed to one
// space, so assertions do not depend on gofmt's column alignment.
func fileNamed(t *testing.T, out *Output, name string) string {
	t.Helper()
	for _, f := range out.Files {
		if f.Name == name {
			return blanks.ReplaceAllString(string(f.Content), " ")
		}
	}
	t.Fatalf("no file %s", name)
	return ""
}

func TestFixtureFilesAreSortedHeadedFormattedAndDeterministic(t *testing.T) {
	a, b := generateFixture(t), generateFixture(t)
	var names []string
	for i, f := range a.Files {
		names = append(names, f.Name)
		if !strings.HasPrefix(string(f.Content), Header+"\n") {
			t.Errorf("%s does not start with the header", f.Name)
		}
		if formatted, err := format.Source(f.Content); err != nil || !bytes.Equal(formatted, f.Content) {
			t.Errorf("%s is not gofmt-clean (%v)", f.Name, err)
		}
		if !bytes.Equal(f.Content, b.Files[i].Content) {
			t.Errorf("%s differs between two runs", f.Name)
		}
	}
	want := "api_gen.go client_gen.go doc.go files_gen.go journal_gen.go models_gen.go operations_gen.go orders_gen.go"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("files = %s, want %s", got, want)
	}
}

// TestFixtureCompilesVetsAndRoundTrips compiles and vets the generated
// fixture package, then runs testdata/fixture_roundtrip_test.go.txt inside it:
// the JSON behaviour of the generated models (unknown enum values, extra
// members, unions with and without a discriminator, recursion).
func TestFixtureCompilesVetsAndRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	files := generateFixture(t).Files
	rt, err := os.ReadFile(filepath.Join("testdata", "fixture_roundtrip_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, File{Name: "roundtrip_test.go", Content: rt})
	dir := writeModule(t, map[string][]File{"fixture": files})
	if bad := gofmtClean(t, dir); bad != "" {
		t.Errorf("gofmt would change: %s", bad)
	}
	for _, step := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		out, err := goTool(dir, step...)
		if err != nil {
			t.Fatalf("go %s: %v\n%s", step[0], err, out)
		}
		t.Logf("go %s: %s", step[0], out)
	}
}

func TestGeneratedSurface(t *testing.T) {
	out := generateFixture(t)
	orders := fileNamed(t, out, "orders_gen.go")
	for _, want := range []string{
		"// CreateOrder is keyed: every attempt sends one Idempotency-Key; retried on 408, 429, 502, 503, 504 and on unknown outcomes.",
		"func (c *Client) CreateOrder(ctx context.Context, body Order, params CreateOrderParams, opts ...idemrt.CallOption) (*Order, error)",
		"func (c *Client) GetOrder(ctx context.Context, params GetOrderParams, opts ...idemrt.CallOption) (*GetOrderResult, error)",
		"func (c *Client) DeleteOrder(ctx context.Context, params DeleteOrderParams, opts ...idemrt.CallOption) error",
		"var createOrderOp = idemrt.Operation{",
		"Safety: idemrt.Keyed,",
		`KeyHeader: "Idempotency-Key",`,
		"Retryable: idemrt.StatusSet{Codes: []int{408, 429, 502, 503, 504}},",
		"IdempotencyKey string",
		"ETag string",
		"Hint any",
		"XRate int64",
		"b.Key(params.IdempotencyKey)",
		`b.Query(wire.Param{Name: "status", Style: wire.StyleForm, Explode: true}, params.Status)`,
		`b.Cookie(wire.Param{Name: "session", Style: wire.StyleForm, Explode: true}, params.Session)`,
		"return nil, idemrt.ErrorModel(err, createOrderErrorModel)",
		"case status == 404, status == 409:",
		"case status/100 == 5:",
	} {
		if !strings.Contains(orders, want) {
			t.Errorf("orders_gen.go lacks %q", want)
		}
	}
	// The field, b.Key and idemrt.BuildFailed: three uses besides the doc.
	if strings.Count(orders, "IdempotencyKey") != 4 {
		t.Errorf("the key header must not also be a params field:\n%s", orders)
	}
	ops := fileNamed(t, out, "operations_gen.go")
	for _, want := range []string{
		"SendReceipt is not idempotent: never resent once the request may have reached the server; retried only when it was not sent or on 429.",
		"func (c *Client) SendReceipt(ctx context.Context, body *string, params SendReceiptParams, opts ...idemrt.CallOption) (*SendReceiptResult, error)",
		"Body202 Order",
		// Only a default response: it describes success too.
		"func (c *Client) GetStatus(ctx context.Context, opts ...idemrt.CallOption) (*OrderStatus, error)",
		"return nil, idemrt.ErrorModel(err, getStatusErrorModel)",
		"case resp.StatusCode == 202:",
	} {
		if !strings.Contains(ops, want) {
			t.Errorf("operations_gen.go lacks %q", want)
		}
	}
	files := fileNamed(t, out, "files_gen.go")
	for _, want := range []string{
		"b.FormBody(body,\n",
		`wire.Encoding{Property: "labels", Style: wire.StyleDeepObject, Explode: true},`,
		// tags is form, not exploded: one tags=a,b pair.
		`wire.Encoding{Property: "tags", Style: wire.StyleForm},`,
		`b.MultipartBody(body)`,
		`b.ReaderBody("application/octet-stream", body)`,
		"func (c *Client) PutRaw(ctx context.Context, body io.Reader, params PutRawParams, opts ...idemrt.CallOption) error",
		"func (c *Client) UploadFile(ctx context.Context, body Upload, opts ...idemrt.CallOption) (*[]byte, error)",
		"out := new([]byte)",
		"*out, err = idemrt.DecodeBytes(resp)",
	} {
		if !strings.Contains(files, want) {
			t.Errorf("files_gen.go lacks %q", want)
		}
	}
}

func TestModelsFollowTheConventions(t *testing.T) {
	models := fileNamed(t, generateFixture(t), "models_gen.go")
	for _, want := range []string{
		"type ClientModel struct", // renamed: Client is the client type
		"Client *ClientModel `json:\"client,omitempty\"`",
		"Self *Node `json:\"self\"`", // required but recursive: a pointer
		"Children []Node `json:\"children,omitempty\"`",
		"Note *string `json:\"note\"`", // required, nullable
		"Due *idemrt.Date `json:\"due,omitempty\"`",
		"CreatedAt time.Time `json:\"created_at\"`",
		"Blob []byte `json:\"blob,omitempty\"`",
		"Tags Tags `json:\"tags,omitempty\"`",
		"Score *float32",
		"Status OrderStatus `json:\"status\"`",
		"AdditionalProperties map[string]json.RawMessage `json:\"-\"`",
		"type Tags []string",
		"type Labels map[string]string",
		"type Stamp = time.Time",
		"OrderStatusPending OrderStatus = \"pending\"",
		"func (e OrderStatus) IsKnown() bool",
		"Priority1 Priority = 1",
		"return wire.Known(e, Priority1, Priority2)", // the duplicate value is listed once
		"Cat *Cat",
		"return wire.DecodeVariant(data, &u.Cat)",
		// anyOf: every variant that accepts the value.
		"return wire.DecodeAnyOf(data, &u.raw,\n wire.Variant{Target: &u.Integer},\n wire.Variant{Target: &u.String},\n wire.Variant{Target: &u.List},\n )",
		"return wire.MarshalAnyOf(u.raw, u.Integer, u.String, u.List)",
		"Shipping *struct {",
		"// Second paragraph */ with a comment closer.",
	} {
		if !strings.Contains(models, want) {
			t.Errorf("models_gen.go lacks %q", want)
		}
	}
}

func TestUnsupportedOperationsAreLocatedErrorsOrSkipped(t *testing.T) {
	api := fixture()
	bad := api.Operations[1] // deleteOrder
	bad.Path = "/orders/{order_id}/{version}"
	bad.Source = ir.Source{File: "fixture.yaml", Pointer: "/paths/~1orders~1{order_id}~1{version}/delete", Line: 12, Column: 5}
	param := *bad.Params[0]
	bad.Params = []*ir.Parameter{&param}
	param.Style = "deepObject"
	param.Source = ir.Source{File: "fixture.yaml", Line: 14, Column: 9}
	_, err := Generate(api, Config{Package: "fixture"})
	want := `fixture.yaml:12:5: deleteOrder (/paths/~1orders~1{order_id}~1{version}/delete): the path /orders/{order_id}/{version} names {version} but no path parameter declares it` + "\n" +
		`fixture.yaml:14:9: deleteOrder: parameter "order_id": style "deepObject" is not allowed in path (allowed: simple, label, matrix); the client cannot serialise it`
	if err == nil || err.Error() != want {
		t.Fatalf("err =\n%v\nwant\n%s", err, want)
	}
	out, err := Generate(api, Config{Package: "fixture", SkipUnsupported: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Skipped) != 2 || out.Skipped[0].Operation != "deleteOrder" {
		t.Errorf("Skipped = %v", out.Skipped)
	}
	if strings.Contains(fileNamed(t, out, "orders_gen.go"), "DeleteOrder") {
		t.Error("a skipped operation was generated")
	}
}

func TestInvalidPackageName(t *testing.T) {
	for _, name := range []string{"", "func", "my-pkg", "1x", "main", "_"} {
		if _, err := Generate(fixture(), Config{Package: name}); err == nil {
			t.Errorf("package %q accepted", name)
		}
	}
}

func TestFileStem(t *testing.T) {
	for in, want := range map[string]string{
		"": "operations", "orders": "orders", "Pet Store": "pet_store", "userAccounts": "user_accounts",
		"client": "client_ops", "models": "models_ops", "server": "server_ops", "API": "api_ops", "Journal": "journal_ops",
		"Webhook receiver": "webhook_receiver_ops", "_internal": "internal", "!!!": "tag", "API v2": "api_v2",
		"Übersicht": "bersicht",
		// A tag of any length gives a file name the file system accepts.
		strings.Repeat("a", 300):   strings.Repeat("a", maxFileStem),
		strings.Repeat("ab ", 100): strings.TrimSuffix(strings.Repeat("ab_", maxFileStem/3+1)[:maxFileStem], "_"),
		"../../etc/passwd":         "etc_passwd",
	} {
		if got := fileStem(in); got != want {
			t.Errorf("fileStem(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTagsNamedLikeGeneratedFiles: operations tagged like the files the
// generator writes for itself (fire.com's and Postman's "API") keep a file
// of their own, and the package type-checks.
func TestTagsNamedLikeGeneratedFiles(t *testing.T) {
	api := fixture()
	tags := []string{"API", "Journal", "Client", "Models", "Server", "doc", "Webhook Receiver"}
	for i, op := range api.Operations {
		op.Tag = tags[i%len(tags)]
	}
	out, err := Generate(api, Config{Package: "orders", Server: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range out.Files {
		if seen[f.Name] {
			t.Errorf("two files named %s", f.Name)
		}
		seen[f.Name] = true
	}
	if !seen["api_ops_gen.go"] || !seen["api_gen.go"] {
		t.Errorf("files %v: want api_gen.go and api_ops_gen.go", seen)
	}
	if err := typeCheckFiles(t, out.Files); err != nil {
		t.Fatal(err)
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{"CreateOrder": "createOrder", "URLList": "urlList", "ID": "id", "X": "x", "already": "already"} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWrapKeepsMarkupAndBreaksProse(t *testing.T) {
	long := strings.Repeat("word ", 30)
	got := wrap(strings.TrimSpace(long), 40)
	for _, l := range got {
		if len(l) > 40 {
			t.Errorf("line %q is longer than 40", l)
		}
	}
	if strings.Join(got, " ") != strings.TrimSpace(long) {
		t.Error("wrapping changed the words")
	}
	for _, markup := range []string{"- " + long, "1. " + long, "\t" + long, "| a | b |" + long} {
		if got := wrap(markup, 40); len(got) != 1 {
			t.Errorf("%.10q was wrapped", markup)
		}
	}
}

func TestEnumLiteral(t *testing.T) {
	for _, tt := range []struct {
		base ir.Kind
		in   string
		key  string
		ok   bool
	}{
		{ir.KindInteger, "7", "7", true}, {ir.KindInteger, "x", "", false},
		{ir.KindNumber, "1.0", "1", true}, {ir.KindNumber, "1", "1", true},
		{ir.KindNumber, "NaN", "", false}, {ir.KindNumber, "Inf", "", false},
		{ir.KindString, "a\"b", "a\"b", true},
	} {
		_, key, ok := enumLiteral(tt.base, tt.in)
		if key != tt.key || ok != tt.ok {
			t.Errorf("enumLiteral(%v, %q) = %q, %v", tt.base, tt.in, key, ok)
		}
	}
}

// TestJSONTagIsJenTag checks that jsonTag writes what jen's Tag writes.
func TestJSONTagIsJenTag(t *testing.T) {
	for _, v := range []string{"id", "id,omitempty", "-", "a`b", "quote\"d", "tab\t", "ü,omitzero"} {
		want := jen.Type().Id("T").Struct(jen.Id("F").String().Tag(map[string]string{"json": v})).GoString()
		got := jen.Type().Id("T").Struct(jen.Id("F").String().Op(jsonTag(v))).GoString()
		if got != want {
			t.Errorf("jsonTag(%q) renders %s, jen's Tag %s", v, got, want)
		}
	}
}

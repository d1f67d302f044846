package parser

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemgen/idemgen/ir"
)

// readExt parses `owner` (a YAML object holding an extension) and returns a
// reader and the owner's location.
func readExt(t *testing.T, owner string) (extReader, loc, *diagSink) {
	t.Helper()
	root, err := parseTree([]byte(owner))
	if err != nil {
		t.Fatalf("bad test YAML %q: %v", owner, err)
	}
	sink := &diagSink{files: map[string]*docFile{"t.yaml": {key: "t.yaml", display: "t.yaml", root: root}}}
	return extReader{sink: sink, op: "op"}, loc{"t.yaml", "", root}, sink
}

func rules(ds ir.Diagnostics) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Rule)
	}
	return strings.Join(out, ",")
}

func TestIdempotentValues(t *testing.T) {
	tests := []struct {
		value   string
		want    *idempotency // nil: no contract from this level
		diagnos string       // rules reported, comma-separated
	}{
		{"true", &idempotency{kind: ir.IdempotencyTrue}, ""},
		{"false", &idempotency{kind: ir.IdempotencyFalse}, ""},
		{"{key: {in: header, name: Idempotency-Key}}", &idempotency{kind: ir.IdempotencyKeyed, keyIn: "header", keyName: "Idempotency-Key"}, ""},
		{"{key: {name: X-Request-Key}}", &idempotency{kind: ir.IdempotencyKeyed, keyIn: "header", keyName: "X-Request-Key"}, ""},
		{"{key: {in: header, name: K, x-note: ok}, x-owner: me}", &idempotency{kind: ir.IdempotencyKeyed, keyIn: "header", keyName: "K"}, ""},
		{`"true"`, nil, ruleIdempotentType},
		{"yes_please", nil, ruleIdempotentType},
		{"1", nil, ruleIdempotentType},
		{"null", nil, ruleIdempotentType},
		{"[true]", nil, ruleIdempotentType},
		{"{}", nil, ruleIdempotentKey},
		{"{key: Idempotency-Key}", nil, ruleIdempotentKey},
		{"{key: {in: query, name: k}}", nil, ruleIdempotentKey},
		{"{key: {in: header}}", nil, ruleIdempotentKey},
		{"{key: {in: header, name: ''}}", nil, ruleIdempotentKey},
		{`{key: {in: header, name: "a b"}}`, nil, ruleIdempotentKey},
		{"{key: {in: header, name: K}, scope: x}", nil, ruleIdempotentKey},
		{"{key: {name: K}, ttl: 48h}", &idempotency{kind: ir.IdempotencyKeyed, keyIn: "header", keyName: "K", ttl: 48 * time.Hour}, ""},
		{"{key: {name: K}, ttl: 7d}", &idempotency{kind: ir.IdempotencyKeyed, keyIn: "header", keyName: "K", ttl: 7 * 24 * time.Hour}, ""},
		{"{key: {name: K}, ttl: -1h}", nil, ruleIdempotentKey},
		{"{key: {name: K}, ttl: soon}", nil, ruleIdempotentKey},
		{"{key: {name: K}, ttl: 99999999d}", nil, ruleIdempotentKey},
		{"{key: {in: header, name: K, required: true}}", nil, ruleIdempotentKey},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			r, at, sink := readExt(t, "x-idempotent: "+tt.value)
			got := r.idempotent(at)
			if got != nil {
				got.at = loc{}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if rules(sink.list) != tt.diagnos {
				t.Errorf("diagnostics %q, want %q: %v", rules(sink.list), tt.diagnos, sink.list)
			}
		})
	}
}

func TestRetryableValues(t *testing.T) {
	tests := []struct {
		value   string
		codes   []int
		classes []int
		diagnos string
	}{
		{"[408, 429, 502, 503, 504]", []int{408, 429, 502, 503, 504}, nil, ""},
		{"[504, 429, 504]", []int{429, 504}, nil, ruleRetryableDuplicate},
		{`["5XX", 429]`, []int{429}, []int{5}, ""},
		{`["5xx", "1XX"]`, nil, []int{1, 5}, ""},
		{`["503"]`, []int{503}, nil, ""},
		{"[]", nil, nil, ""},
		{"[401]", nil, nil, ruleRetryableNever},
		{"[403, 407, 412, 503]", []int{503}, nil, strings.Repeat(ruleRetryableNever+",", 2) + ruleRetryableNever},
		{`["4XX"]`, nil, nil, ruleRetryableNever},
		{`[200, "2XX", 301, "3XX"]`, nil, nil, strings.TrimSuffix(strings.Repeat(ruleRetryableSuccess+",", 4), ",")},
		{"[400, 404, 409, 422]", []int{400, 404, 409, 422}, nil, strings.TrimSuffix(strings.Repeat(ruleRetryableClientErr+",", 4), ",")},
		{"[99, 600]", nil, nil, ruleRetryableRange + "," + ruleRetryableRange},
		{`["6XX", "0XX"]`, nil, nil, ruleRetryableRange + "," + ruleRetryableRange},
		{`[true, 1.5, "soon", null, {a: 1}, [1]]`, nil, nil, strings.TrimSuffix(strings.Repeat(ruleRetryableType+",", 6), ",")},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			r, at, sink := readExt(t, "x-retryable-status: "+tt.value)
			got := r.retryable(at)
			if got == nil {
				t.Fatal("a list must give a status set")
			}
			if !reflect.DeepEqual(got.set, ir.StatusSet{Codes: tt.codes, Classes: tt.classes}) {
				t.Errorf("set = %+v, want codes %v classes %v", got.set, tt.codes, tt.classes)
			}
			if rules(sink.list) != tt.diagnos {
				t.Errorf("diagnostics %q, want %q: %v", rules(sink.list), tt.diagnos, sink.list)
			}
		})
	}
}

func TestRetryableNotAList(t *testing.T) {
	for _, v := range []string{"503", `"5XX"`, "{codes: [503]}", "null"} {
		r, at, sink := readExt(t, "x-retryable-status: "+v)
		if got := r.retryable(at); got != nil {
			t.Errorf("%s: got %+v, want nil", v, got)
		}
		if rules(sink.list) != ruleRetryableType {
			t.Errorf("%s: diagnostics %v", v, sink.list)
		}
	}
}

// TestRetryableDiagnosticLocation pins the acceptance example: the item's
// file, line, column, operation and pointer.
func TestRetryableDiagnosticLocation(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      x-idempotent: false
      x-retryable-status:
        - 503
        - 401
      responses:
        "201": {description: ok}
`
	_, diags, err := LoadData("orders.yaml", []byte(spec), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "orders.yaml:10:11: createOrder (/paths/~1orders/post/x-retryable-status/1): 401 is never retried (an authentication failure); remove it"
	if len(diags) != 1 || diags[0].String() != want || diags[0].Severity != ir.SeverityError {
		t.Fatalf("got %v\nwant %s", diags, want)
	}
}

// contractCase describes where annotations sit in a one-operation document.
type contractCase struct {
	name                           string
	method                         string
	rootRetry, pathRetry, opRetry  string
	pathIdem, opIdem, headerParams string
	want                           ir.RetryContract
}

func (c contractCase) spec() string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\n")
	if c.rootRetry != "" {
		fmt.Fprintf(&b, "x-retryable-status: %s\n", c.rootRetry)
	}
	b.WriteString("paths:\n  /things:\n")
	if c.pathRetry != "" {
		fmt.Fprintf(&b, "    x-retryable-status: %s\n", c.pathRetry)
	}
	if c.pathIdem != "" {
		fmt.Fprintf(&b, "    x-idempotent: %s\n", c.pathIdem)
	}
	fmt.Fprintf(&b, "    %s:\n      operationId: op\n", strings.ToLower(c.method))
	if c.opRetry != "" {
		fmt.Fprintf(&b, "      x-retryable-status: %s\n", c.opRetry)
	}
	if c.opIdem != "" {
		fmt.Fprintf(&b, "      x-idempotent: %s\n", c.opIdem)
	}
	if c.headerParams != "" {
		b.WriteString("      parameters:\n")
		for _, h := range strings.Split(c.headerParams, ",") {
			fmt.Fprintf(&b, "        - {name: %s, in: header, schema: {type: string}}\n", h)
		}
	}
	b.WriteString("      responses:\n        \"200\": {description: ok}\n")
	return b.String()
}

func TestContractInheritance(t *testing.T) {
	def := ir.DefaultRetryable()
	tests := []contractCase{
		{name: "GET inferred", method: "GET",
			want: ir.RetryContract{Safety: ir.Idempotent, Retryable: def}},
		{name: "POST inferred", method: "POST",
			want: ir.RetryContract{Safety: ir.Unsafe, Retryable: def}},
		{name: "PUT and DELETE inferred", method: "DELETE",
			want: ir.RetryContract{Safety: ir.Idempotent, Retryable: def}},
		{name: "PATCH inferred", method: "PATCH",
			want: ir.RetryContract{Safety: ir.Unsafe, Retryable: def}},
		{name: "POST keyed by declared header", method: "POST", headerParams: "Idempotency-Key",
			want: ir.RetryContract{Safety: ir.Keyed, Kind: ir.IdempotencyKeyed, KeyIn: "header", KeyName: "Idempotency-Key", IdempotencyLevel: ir.LevelParameter, Retryable: def}},
		{name: "declared header any case", method: "PATCH", headerParams: "idempotency-KEY",
			want: ir.RetryContract{Safety: ir.Keyed, Kind: ir.IdempotencyKeyed, KeyIn: "header", KeyName: "idempotency-KEY", IdempotencyLevel: ir.LevelParameter, Retryable: def}},
		{name: "other key-like headers do not key", method: "POST", headerParams: "X-Idempotency-Key",
			want: ir.RetryContract{Safety: ir.Unsafe, Retryable: def}},
		{name: "explicit false beats the key header", method: "POST", opIdem: "false", headerParams: "Idempotency-Key",
			want: ir.RetryContract{Safety: ir.Unsafe, Kind: ir.IdempotencyFalse, IdempotencyLevel: ir.LevelOperation, Retryable: def}},
		{name: "false on a GET", method: "GET", opIdem: "false",
			want: ir.RetryContract{Safety: ir.Unsafe, Kind: ir.IdempotencyFalse, IdempotencyLevel: ir.LevelOperation, Retryable: def}},
		{name: "path item true", method: "POST", pathIdem: "true",
			want: ir.RetryContract{Safety: ir.Idempotent, Kind: ir.IdempotencyTrue, IdempotencyLevel: ir.LevelPathItem, Retryable: def}},
		{name: "operation beats path item", method: "POST", pathIdem: "true", opIdem: "{key: {in: header, name: K}}",
			want: ir.RetryContract{Safety: ir.Keyed, Kind: ir.IdempotencyKeyed, KeyIn: "header", KeyName: "K", IdempotencyLevel: ir.LevelOperation, Retryable: def}},
		{name: "root list", method: "GET", rootRetry: "[503]",
			want: ir.RetryContract{Safety: ir.Idempotent, Retryable: ir.StatusSet{Codes: []int{503}}, RetryableLevel: ir.LevelRoot}},
		{name: "path item beats root", method: "GET", rootRetry: "[503]", pathRetry: `["5XX"]`,
			want: ir.RetryContract{Safety: ir.Idempotent, Retryable: ir.StatusSet{Classes: []int{5}}, RetryableLevel: ir.LevelPathItem}},
		{name: "operation beats all", method: "GET", rootRetry: "[503]", pathRetry: `["5XX"]`, opRetry: "[429]",
			want: ir.RetryContract{Safety: ir.Idempotent, Retryable: ir.StatusSet{Codes: []int{429}}, RetryableLevel: ir.LevelOperation}},
		{name: "empty list retries no status", method: "GET", rootRetry: "[503]", opRetry: "[]",
			want: ir.RetryContract{Safety: ir.Idempotent, RetryableLevel: ir.LevelOperation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, diags, err := LoadData("t.yaml", []byte(tt.spec()), Options{})
			if err != nil || diags.HasErrors() || len(api.Operations) != 1 {
				t.Fatalf("load: %v %v\n%s", err, diags, tt.spec())
			}
			got := api.Operations[0].Retry
			// Sources and the sentence have tests of their own.
			got.IdempotencySource, got.RetryableSource, got.Summary = ir.Source{}, ir.Source{}, ""
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("contract\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestContractSources checks that a contract says where it came from.
func TestContractSources(t *testing.T) {
	c := contractCase{method: "POST", pathRetry: "[503]", opIdem: "true"}
	api, _, err := LoadData("t.yaml", []byte(c.spec()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := api.Operations[0].Retry
	if r.IdempotencySource.Pointer != "/paths/~1things/post/x-idempotent" || r.IdempotencySource.Line != 8 {
		t.Errorf("idempotency source %+v", r.IdempotencySource)
	}
	if r.RetryableSource.Pointer != "/paths/~1things/x-retryable-status" || r.RetryableSource.Line != 5 {
		t.Errorf("retryable source %+v", r.RetryableSource)
	}
}

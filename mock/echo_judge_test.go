package mock

// Prism judges both ends: the echo calls of every document also go through
// Stoplight Prism's validation proxy, a validator nobody here wrote, pinned
// by .ci/run (IDEMGEN_PRISM names its command). What it finds wrong in a
// request of the generated client or an answer of the generated server
// fails the test for our own documents and is counted for the real ones,
// as the mock's own verdicts are.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// judgeResult is what Prism said of one call (echoJudgeSource).
type judgeResult struct {
	Op         string      `json:"op"`
	Violations []violation `json:"violations,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// violation is one of Prism's findings and the media type of the answer
// it came with (echoJudgeSource).
type violation struct {
	Text   string `json:"text"`
	Answer string `json:"answer"`
}

// judgeCounts are one document's figures under Prism: calls it relayed,
// calls with a violation of severity error, and whether it ran at all.
type judgeCounts struct {
	Judged, Violated int
	NotRun           bool
}

var prismNote sync.Once

// prismFor returns the command that runs Prism and the document's absolute
// path, or nothing when Prism is not installed (a failure under CI=true,
// where .ci/run installs it). IDEMGEN_PRISM names the command; without it,
// the copy .ci/run installs under .ci/prism is used when it is there.
func prismFor(t *testing.T, path string) ([]string, string) {
	t.Helper()
	cmd := os.Getenv("IDEMGEN_PRISM")
	if local := filepath.Join(testutil.ModuleRoot(t), ".ci", "prism", "node_modules", ".bin", "prism"); cmd == "" && executable(local) {
		cmd = local
	}
	if cmd == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("IDEMGEN_PRISM is not set: .ci/run installs Stoplight Prism and names it there")
		}
		prismNote.Do(func() { t.Log("IDEMGEN_PRISM not set: the echo calls are not judged by Prism (see .ci/run)") })
		return nil, ""
	}
	if why, ok := prismSkips[filepath.Base(path)]; ok {
		t.Logf("prism: not run: %s", why)
		return nil, ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return []string{cmd}, abs
}

// prismSkips are the documents Prism does not judge, and why.
var prismSkips = map[string]string{
	"github-api.json":           "Prism resolves a $ref in one of its examples by downloading it from api.github.com, which a test must not reach",
	"stripe-spec3-2023-09.yaml": "Prism 5.16.0 has not started on it after 3 minutes of CPU (stripe-mock judges the Stripe clients: internal/stripemocktest)",
}

// prismDeviation is a violation Prism reports of a call that follows the
// OpenAPI rules, and the rule.
type prismDeviation struct {
	doc, op, violation, why string
}

// prismDeviations are Prism's known misreadings in our own documents. A
// listed one that Prism no longer reports fails the test too, so the list
// says what is true of the pinned version.
var prismDeviations = []prismDeviation{
	{"streaming.yaml", "watchTicker", `response: Error: The received media type "text/event-stream" does not match the one specified in the current response: Text/Event-Stream; charset=utf-8`,
		"media types compare case-insensitively (RFC 9110 8.3.1) and an event stream is UTF-8 whatever its parameters say; Prism compares the declared text as written"},
}

// pairsRE reads Prism's verdict on one property of a request body.
var pairsRE = regexp.MustCompile(`^request\.body\.(\S+): Error: Request body property \S+ must be (array|object)$`)

// pairsReading reports Prism's reading of a form or multipart body, whose
// values it takes as flat strings: a property the call sent as a
// one-element array (one pair or one part: style form, explode true, is
// the default of a form property without an encoding entry, OpenAPI 3.0.3
// 4.7.15, and a multipart array is one part per element) is "must be
// array"; an object, sent as a JSON part or as bracketed pairs, is "must be
// object".
func pairsReading(v violation, cl confCall) bool {
	m := pairsRE.FindStringSubmatch(v.Text)
	if m == nil || !cl.Form && cl.PartTypes == nil {
		return false
	}
	var body map[string]json.RawMessage
	if json.Unmarshal(cl.Body, &body) != nil {
		return false
	}
	if m[2] == "object" {
		var obj map[string]json.RawMessage
		return json.Unmarshal(body[m[1]], &obj) == nil && obj != nil
	}
	var list []json.RawMessage
	return json.Unmarshal(body[m[1]], &list) == nil && len(list) == 1
}

// streamBody reports a violation of a stream's body: Prism validates the
// whole body of an event stream, a JSON text sequence or JSON Lines as one
// value of the event schema.
func streamBody(v violation) bool {
	switch v.Answer {
	case "text/event-stream", "application/json-seq", "application/jsonl", "application/x-ndjson", "application/x-jsonlines":
		return strings.HasPrefix(v.Text, "response.body")
	}
	return false
}

// executable reports whether path is a file that can be run.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// reportJudged counts and reports Prism's verdicts; under strict, a
// violation of severity error that is not a known deviation fails the
// test, and so does a known deviation Prism did not report.
func reportJudged(t *testing.T, plan confPlan, results []judgeResult, strict bool) judgeCounts {
	t.Helper()
	var c judgeCounts
	if len(plan.Prism) == 0 {
		c.NotRun = true
		return c
	}
	report := t.Logf
	if strict {
		report = t.Errorf
	}
	calls := map[string]confCall{}
	for _, cl := range plan.Calls {
		calls[cl.Op] = cl
	}
	doc := filepath.Base(plan.Spec)
	known, seen := map[string]string{}, map[string]bool{}
	for _, d := range prismDeviations {
		if d.doc == doc {
			known[d.op+" "+d.violation] = d.why
		}
	}
	for _, r := range results {
		if r.Op == "prism" || r.Op == "NewServer" || r.Op == "NewClient" {
			c.NotRun = true
			report("prism: %s: %s", r.Op, r.Error)
			continue
		}
		c.Judged++
		if r.Error != "" {
			t.Logf("prism: %s: the call through Prism failed: %s", r.Op, r.Error)
		}
		if errs := judgeOne(t, r, calls[r.Op], known, seen); len(errs) > 0 {
			c.Violated++
			report("prism: %s: %s", r.Op, strings.Join(errs, "; "))
		}
	}
	for k := range known {
		if !seen[k] {
			report("prism: known deviation no longer reported: %s", k)
		}
	}
	t.Logf("prism: %d calls judged, %d with violations", c.Judged, c.Violated)
	return c
}

// judgeOne returns the violations of one call that count: of severity
// error, neither a known deviation (which it marks seen), nor Prism's
// reading of a form or multipart body, nor the body of a stream.
func judgeOne(t *testing.T, r judgeResult, cl confCall, known map[string]string, seen map[string]bool) []string {
	var errs []string
	for _, v := range r.Violations {
		why, isKnown := known[r.Op+" "+v.Text]
		switch {
		case !strings.Contains(strings.ToLower(v.Text), ": error: "):
			t.Logf("prism: %s: %s", r.Op, v.Text)
		case isKnown:
			seen[r.Op+" "+v.Text] = true
			t.Logf("prism: %s: %s (known: %s)", r.Op, v.Text, why)
		case pairsReading(v, cl):
			t.Logf("prism: %s: %s (Prism reads the values of a form or multipart body as strings)", r.Op, v.Text)
		case streamBody(v):
			t.Logf("prism: %s: %s (a %s answer: Prism reads a stream's body as one value)", r.Op, v.Text, v.Answer)
		default:
			errs = append(errs, v.Text)
		}
	}
	sort.Strings(errs)
	return errs
}

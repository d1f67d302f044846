package mock

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/idemgen/idemgen/internal/testutil"
)

// answerSpecs are the documents whose every answer is validated: the
// project's own, and (without -short) the real ones of ../shared/specs.
func answerSpecs(t *testing.T) []string {
	own, err := filepath.Glob("../testdata/specs/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := filepath.Glob("../testdata/specs/*.json")
	own = append(own, js...)
	own = append(own, "../testdata/specs/multifile/api.yaml")
	if testing.Short() {
		return own
	}
	dir := testutil.SharedSpecsDir(t)
	if dir == "" {
		t.Log("../shared/specs not found: real documents not checked")
		return own
	}
	real, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	yaml, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	return append(own, append(real, yaml...)...)
}

// TestEveryAnswerValidates builds the answer of every declared response of
// every operation, static and dynamic, and validates it with
// openapi3filter.ValidateResponse, headers and status included.
func TestEveryAnswerValidates(t *testing.T) {
	for _, path := range answerSpecs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, dynamic := range []bool{false, true} {
				s, err := New(path, Options{Dynamic: dynamic, Seed: 7})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				checked, failures := validateAnswers(t, s)
				t.Logf("dynamic=%v: %d answers of %d operations validated, %d failed", dynamic, checked, len(s.routes), len(failures))
				for i, f := range failures {
					if i == 15 {
						t.Errorf("... and %d more", len(failures)-15)
						break
					}
					t.Error(f)
				}
			}
		})
	}
}

func validateAnswers(t *testing.T, s *Server) (int, []string) {
	var failures []string
	checked := 0
	for _, rt := range s.routes {
		if rt.op.Responses == nil {
			continue
		}
		keys := make([]string, 0)
		for k := range rt.op.Responses.Map() {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			code := 0
			switch {
			case k == "default":
				code = 599
			case strings.HasSuffix(k, "XX"):
				n, _ := strconv.Atoi(k[:1])
				code = n*100 + 99
			default:
				code, _ = strconv.Atoi(k)
			}
			req := httptest.NewRequest(rt.method, "http://mock"+concretePath(rt.path), nil)
			b := s.build(req, rt, answerFor{status: code})
			in := &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: rt.kroute},
				Status:                 b.status,
				Header:                 http.Header{},
				Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true,
					SchemaValidationOptions: formatOpts,
					ExcludeResponseBody:     b.events != nil || openapi3filter.RegisteredBodyDecoder(mediaBase(b.media)) == nil},
			}
			for h, v := range b.header {
				in.Header[h] = v
			}
			if b.media != "" {
				in.Header.Set("Content-Type", b.media)
			}
			in.SetBodyBytes(b.body)
			checked++
			if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
				failures = append(failures, rt.id+" "+k+": "+oneLine(err.Error())+"\n  body: "+trunc(string(b.body)))
			}
		}
	}
	return checked, failures
}

func concretePath(p string) string {
	return paramRE.ReplaceAllString(p, "x1")
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// A uniqueItems list of patterned strings needs distinct members that all
// keep the pattern ("0" and "01" would not do for ^(0|[1-9][0-9]*)$).
func TestUniqueItemsKeepThePattern(t *testing.T) {
	doc := []byte(`openapi: 3.0.3
info: {title: u, version: "1"}
paths: {}
components:
  schemas:
    Ids:
      type: array
      minItems: 3
      uniqueItems: true
      items: {type: string, pattern: "^(0|[1-9][0-9]*)$"}
`)
	s, err := NewData("u.yaml", doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	schema := s.doc.Components.Schemas["Ids"]
	for _, response := range []bool{false, true} {
		v := (&valueBuilder{response: response}).value(schema)
		if err := schema.Value.VisitJSON(v); err != nil {
			t.Errorf("%v: %v", v, err)
		}
	}
}

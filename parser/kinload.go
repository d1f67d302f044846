package parser

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// kinLoad is stage 3 of a load: it hands the repaired document set to
// kin-openapi (an OpenAPI 3 document directly, a Swagger 2.0 one through
// openapi2conv), and while kin-openapi's decoder refuses a value it fixes the
// tree there and tries again (repairFromKinError). kin-openapi's strict
// Validate is never run: real documents fail it for reasons the generator
// does not care about, and the parser checks what it does care about itself.
func (l *loader) kinLoad(swagger bool) (*openapi3.T, error) {
	doc, err := l.kinLoadOnce(swagger)
	for i := 0; err != nil && i < maxKinRepairs && l.repairFromKinError(err); i++ {
		doc, err = l.kinLoadOnce(swagger)
	}
	return doc, err
}

// kinLoadOnce runs kin-openapi once on the current trees.
//
// It runs after stage 2, never beside it. Until November 2026 kin-openapi was
// also started on the original bytes concurrently with stages 1 and 2 (a
// "speculative" load, its result used only when nothing was repaired, thrown
// away otherwise). It did not pay, so it was removed. Measured with
// `go test ./parser -run '^$' -bench 'BenchmarkLoad' -benchtime 5x`, 12 runs
// with and 12 without, interleaved, on the 2-core development machine shared
// with other jobs (load average 8 to 13); best run / median, ms per Load:
//
//	document                    with it      without
//	twilio-api-v2010.yaml       209 / 1003   264 /  738
//	openai.yaml                 558 / 1866   440 / 1445
//	stripe-spec3-2023-09.yaml   769 / 2471   601 / 1853
//	github-api.json             880 / 1495   574 / 1760
//
// CPU time of a whole run: 12 s with it, 11 s without (median). The overlap
// it was built for needs an idle second core; see docs/parser.md.
func (l *loader) kinLoadOnce(swagger bool) (*openapi3.T, error) {
	location := &url.URL{Path: l.root.key}
	if swagger {
		return l.kinLoadSwagger(l.newKinLoader(), location)
	}
	if doc := l.kinDecodeTree(l.newKinLoader()); doc != nil {
		return doc, nil
	}
	data, err := l.root.bytesOf()
	if err != nil {
		return nil, err
	}
	// A loader of its own: a failed kinDecodeTree may have left state in its.
	return l.newKinLoader().LoadFromDataWithPath(data, location)
}

// newKinLoader returns a kin-openapi loader that reads only what the
// pre-pass loaded: serve hands out the vetted files, so the remote reference
// policy is enforced there, not by kin-openapi's flag.
func (l *loader) newKinLoader() *openapi3.Loader {
	kl := openapi3.NewLoader()
	kl.IsExternalRefsAllowed = true
	kl.ReadFromURIFunc = l.serve
	return kl
}

func (l *loader) kinLoadSwagger(kl *openapi3.Loader, location *url.URL) (*openapi3.T, error) {
	budget := &expansion{left: (&aliasCounter{}).size(l.root.root, false) + aliasBudget}
	value := toJSONValue(l.root.root, 0, budget)
	if budget.left < 0 {
		return nil, errExpansionBudget
	}
	data, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(data, &doc2); err != nil {
		return nil, err
	}
	return openapi2conv.ToV3WithLoader(&doc2, kl, location)
}

// toJSONValue converts a YAML tree into values encoding/json can marshal:
// every mapping key becomes a string (YAML allows `200:` as an integer key).
// Each node produced is charged to budget; once it is spent the walk stops
// (the caller checks budget.left).
func toJSONValue(n *yaml.Node, depth int, budget *expansion) any {
	n = unalias(n)
	if n == nil || depth > maxDepth || !budget.take() {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = toJSONValue(n.Content[i+1], depth+1, budget)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = toJSONValue(c, depth+1, budget)
		}
		return s
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil
}

// scalarValue decodes a scalar by its resolved YAML tag.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, err := strconv.ParseBool(n.Value)
		if err == nil {
			return b
		}
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			if i, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
				return i
			}
			return f
		}
	}
	return n.Value
}

package overlay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theory/jsonpath/spec"
	"go.yaml.in/yaml/v4"
)

const doc = `openapi: 3.0.3
paths:
  /orders:
    get: {operationId: listOrders}
    post: {operationId: createOrder, tags: [a, b]}
  /orders/{id}:
    delete: {operationId: deleteOrder}
`

func tree(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	return n.Content[0]
}

func mustParse(t *testing.T, name, src string) *Document {
	t.Helper()
	d, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func render(t *testing.T, n *yaml.Node) string {
	t.Helper()
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApplyUpdateRemoveInOrder(t *testing.T) {
	root := tree(t, doc)
	first := mustParse(t, "one.yaml", `overlay: 1.0.0
info: {title: t, version: "1"}
actions:
  - target: $.paths['/orders'].post
    update:
      x-idempotent: false
      tags: [c]
  - target: $.paths.*[?@.operationId == 'deleteOrder']
    remove: true
`)
	second := mustParse(t, "two.yaml", `overlay: 1.0.0
actions:
  - target: $.paths['/orders'].post
    update: {x-idempotent: {key: {in: header, name: Idempotency-Key}}}
  - target: $.paths['/orders'].post.tags
    update: d
`)
	res, err := Apply(root, []*Document{first, second})
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, root)
	for _, want := range []string{
		"x-idempotent: {key: {in: header, name: Idempotency-Key}}", // the later overlay wins
		"tags: [c, d]", // replaced by the first, appended to by the second
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "deleteOrder") || !strings.Contains(got, "/orders/{id}: {}") {
		t.Errorf("deleteOrder not removed:\n%s", got)
	}
	if !res.Changed || len(res.Findings) != 0 {
		t.Errorf("changed %v, findings %v", res.Changed, res.Findings)
	}
	// The added extension is located in the overlay that wrote it.
	post := get(get(get(root, "paths"), "/orders"), "post")
	x := get(post, "x-idempotent")
	if res.Origins[x] != "two.yaml" || x.Line != 4 {
		t.Errorf("x-idempotent from %q line %d, want two.yaml line 4", res.Origins[x], x.Line)
	}
	if _, ok := res.Origins[get(post, "operationId")]; ok {
		t.Error("a document node is recorded as coming from an overlay")
	}
}

func TestApplyRemoveSeveralItems(t *testing.T) {
	root := tree(t, "openapi: 3.0.3\nl: [1, 2, 3, 4]\npaths: {}\n")
	d := mustParse(t, "o.yaml", "overlay: 1.0.0\nactions:\n  - {target: '$.l[?@ > 1 && @ < 4]', remove: true}\n")
	if _, err := Apply(root, []*Document{d}); err != nil {
		t.Fatal(err)
	}
	if got := render(t, root); !strings.Contains(got, "l: [1, 4]") {
		t.Errorf("got\n%s", got)
	}
}

func TestApplyTargetMatchesNothing(t *testing.T) {
	root := tree(t, doc)
	d := mustParse(t, "o.yaml", "overlay: 1.0.0\nactions:\n  - target: $.paths['/nope'].post\n    update: {x-idempotent: true}\n")
	res, err := Apply(root, []*Document{d})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Changed {
		t.Fatalf("findings %v changed %v", res.Findings, res.Changed)
	}
	f := res.Findings[0]
	if f.Rule != RuleTarget || f.File != "o.yaml" || f.Line != 3 || f.Column != 13 {
		t.Errorf("finding %+v, want overlay-target at o.yaml:3:13", f)
	}
}

func TestApplyAliasedMemberGetsItsOwnCopy(t *testing.T) {
	root := tree(t, "openapi: 3.0.3\na: &x {k: 1}\nb: *x\npaths: {}\n")
	d := mustParse(t, "o.yaml", "overlay: 1.0.0\nactions:\n  - {target: $, update: {b: {j: 2}}}\n")
	if _, err := Apply(root, []*Document{d}); err != nil {
		t.Fatal(err)
	}
	got := render(t, root)
	if !strings.Contains(got, "a: &x {k: 1}") || !strings.Contains(got, "b: {k: 1, j: 2}") {
		t.Errorf("got\n%s", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a: [", "o.yaml: not a YAML or JSON document"},
		{"- 1\n", "o.yaml:1:1: not an overlay document"},
		{"info: {}\nactions: []\n", "o.yaml:1:1: not an overlay document (no `overlay` version field)"},
		{"overlay: 2.0.0\nactions: []\n", `o.yaml:1:10: overlay version "2.0.0" is not supported`},
		{"overlay: 1.0.0\n", "o.yaml:1:1: no `actions` list"},
		{"overlay: 1.0.0\nactions: []\n", "o.yaml:2:10: `actions` is empty"},
		{"overlay: 1.0.0\nactions:\n  - update: {}\n", "o.yaml:3:5: an action needs a `target`"},
		{"overlay: 1.0.0\nactions:\n  - {target: '$.paths[', remove: true}\n", `o.yaml:3:14: target "$.paths[" is not a JSONPath expression`},
		{"overlay: 1.0.0\nactions:\n  - {target: $, remove: true, update: {}}\n", "o.yaml:3:5: an action with both"},
		{"overlay: 1.0.0\nactions:\n  - {target: $, updates: {}}\n", `o.yaml:3:17: unknown member "updates"`},
	} {
		_, err := Parse("o.yaml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s...", tc.src, err, tc.want)
		}
	}
}

func TestApplyBoundsAliasExpansion(t *testing.T) {
	var b strings.Builder
	b.WriteString("overlay: 1.0.0\nx0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")
	for i := 1; i < 8; i++ {
		b.WriteString("x" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("actions:\n  - {target: $, update: {bomb: *a7}}\n")
	d, err := Parse("o.yaml", []byte(strings.ReplaceAll(b.String(), "\nx", "\nx-x")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(tree(t, doc), []*Document{d}); err == nil || !strings.Contains(err.Error(), "alias bomb") {
		t.Fatalf("got %v", err)
	}
}

// Plain chains of names and indexes are resolved on the tree, the others on
// the view; mixing them keeps both in step.
func TestApplyChainsAndQueriesInStep(t *testing.T) {
	root := tree(t, "openapi: 3.0.3\nl: [1, 2, 3]\npaths: {}\n")
	d := mustParse(t, "o.yaml", `overlay: 1.0.0
actions:
  - {target: '$.l[?@ == 1]', remove: true}
  - {target: '$.l[-1]', remove: true}
  - {target: '$.l', update: 5}
  - {target: '$.l[?@ == 5]', remove: true}
  - {target: '$["l"][-2]', update: 9}
`)
	res, err := Apply(root, []*Document{d})
	if err != nil {
		t.Fatal(err)
	}
	if got := render(t, root); !strings.Contains(got, "l: [2]") {
		t.Errorf("got\n%s", got)
	}
	if len(res.Findings) != 1 || res.Findings[0].Line != 7 || res.Findings[0].Rule != RuleTarget {
		t.Errorf("findings %+v, want one overlay-target at line 7", res.Findings)
	}
}

func TestOutermost(t *testing.T) {
	p := func(sels ...any) spec.NormalizedPath {
		var np spec.NormalizedPath
		for _, s := range sels {
			switch s := s.(type) {
			case string:
				np = append(np, spec.Name(s))
			case int:
				np = append(np, spec.Index(s))
			}
		}
		return np
	}
	got := outermost([]spec.NormalizedPath{p("a", 1, "b"), p("b"), p("a", 1), p("a", 0, "x"), p("a", 1, "c"), p("ab")})
	want := []spec.NormalizedPath{p("a", 0, "x"), p("a", 1), p("ab"), p("b")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outermost = %v, want %v", got, want)
	}
}

// An update of every node with a large value converts each changed subtree
// for the view once, not once per target inside it.
func TestApplyNestedTargetsConvertOnce(t *testing.T) {
	root := tree(t, "openapi: 3.0.3\npaths: {a: {b: {c: {d: {e: {}}}}}}\n")
	d := mustParse(t, "o.yaml", `overlay: 1.0.0
x-1: &a1 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
x-2: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1]
x-3: &a3 [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2]
x-4: &a4 [*a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3]
actions:
  - {target: '$..*', update: {big: *a4}}
`)
	st := &state{root: root, origins: map[*yaml.Node]string{}}
	res := &Applied{}
	if err := st.apply(d.Name, d.Actions[0], res); err != nil {
		t.Fatal(err)
	}
	// 6 nested mappings get 11,112 nodes each: about 67,000 nodes to convert
	// as one subtree (233,000 if each target were converted on its own).
	if st.converted > 70000 {
		t.Errorf("%d nodes converted, want about 67,000", st.converted)
	}
}

package overlay

import (
	"testing"

	"go.yaml.in/yaml/v4"
)

// FuzzApply parses arbitrary overlay text and applies it to a small
// document: it must never panic, and a parsed overlay must apply or fail
// with an error.
func FuzzApply(f *testing.F) {
	for _, seed := range []string{
		"overlay: 1.0.0\nactions:\n  - {target: $.paths['/orders'].post, update: {x-idempotent: true}}\n",
		"overlay: 1.0.0\nactions:\n  - {target: '$..*', remove: true}\n",
		"overlay: 1.0.0\nactions:\n  - {target: '$..[?@.operationId]', update: {x: &a [1, *a]}}\n",
		"overlay: 1.0.0\nactions:\n  - {target: '$.paths.*[-1]', update: [1]}\n  - {target: $, update: {paths: 1}}\n",
		"overlay: 1.0\nactions: [{target: '$[?length(@) > 1]', update: {}}]\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d, err := Parse("o.yaml", []byte(src))
		if err != nil {
			return
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
			t.Fatal(err)
		}
		_, _ = Apply(n.Content[0], []*Document{d})
	})
}

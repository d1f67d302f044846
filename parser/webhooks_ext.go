package parser

// promoteXWebhooks reads a root-level x-webhooks (GitHub's descriptions
// carry their webhooks there in OpenAPI 3.0 documents) as the 3.1 webhooks
// map, when the document has no webhooks of its own: the key is renamed in
// the root file's tree before the repair walk, so the references inside it
// are checked and resolved like any path item's, and locations point at
// /webhooks/<name>.
func (l *loader) promoteXWebhooks() {
	root := l.root.root
	if mapGet(root, "webhooks") != nil {
		return
	}
	if k, v := mapEntry(root, "x-webhooks"); k != nil && v != nil {
		k.Value = "webhooks"
		l.root.repaired = true
	}
}

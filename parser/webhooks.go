package parser

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/ir"
)

// rawHook is a webhook found in the document, before naming.
type rawHook struct {
	name   string
	op     *openapi3.Operation
	at     loc
	goName string
}

// webhooks collects the document's webhooks (3.1 webhooks, and x-webhooks,
// which the repair stage renames to webhooks) and the POSTs of operations'
// callbacks, names them as operations are named, and builds them in GoName
// order so inline payload names are deterministic.
func (b *builder) webhooks() []*ir.Webhook {
	raws := append(b.declaredHooks(), b.callbackHooks()...)
	sort.SliceStable(raws, func(i, j int) bool { return raws[i].goName < raws[j].goName })
	names := newNamer()
	seen := map[string]bool{}
	var out []*ir.Webhook
	ats := map[*ir.Webhook]loc{}
	for _, r := range raws {
		if seen[r.name] {
			b.l.sink.warnf(r.at, r.op.OperationID, ruleWebhook,
				"webhook %q is declared twice; the first by name is served", r.name)
			continue
		}
		seen[r.name] = true
		r.goName = names.unique(r.goName)
		if w := b.webhook(r); w != nil {
			out = append(out, w)
			ats[w] = r.at
		}
	}
	b.uniqueEventTypes(out, ats)
	return out
}

// declaredHooks reads the webhooks map: one POST per entry.
func (b *builder) declaredHooks() []*rawHook {
	at := b.rootLoc.at("webhooks")
	var raws []*rawHook
	for _, name := range sortedMapKeys(b.doc.Webhooks) {
		if item := b.doc.Webhooks[name]; item != nil {
			raws = append(raws, b.hookOf(name, item, b.follow(at.at(name)))...)
		}
	}
	return raws
}

// callbackHooks reads every operation's callbacks: the callback's name is
// the webhook's, its expression (the URL the client registered) is not
// needed to receive it.
func (b *builder) callbackHooks() []*rawHook {
	if b.doc.Paths == nil {
		return nil
	}
	pathsAt := b.rootLoc.at("paths")
	paths := b.doc.Paths.Map()
	var raws []*rawHook
	for _, key := range sortedMapKeys(paths) {
		if paths[key] == nil {
			continue
		}
		ops := paths[key].Operations()
		for _, method := range methodOrder {
			if op := ops[method]; op != nil {
				at := b.follow(pathsAt.at(key)).at(strings.ToLower(method))
				raws = append(raws, b.callbacksOf(op, at)...)
			}
		}
	}
	return raws
}

func (b *builder) callbacksOf(op *openapi3.Operation, at loc) []*rawHook {
	var raws []*rawHook
	for _, cb := range sortedMapKeys(op.Callbacks) {
		ref := op.Callbacks[cb]
		if ref == nil || ref.Value == nil {
			continue
		}
		cbAt := b.follow(at.at("callbacks", cb))
		m := ref.Value.Map()
		for _, expr := range sortedMapKeys(m) {
			if item := m[expr]; item != nil {
				raws = append(raws, b.hookOf(cb, item, b.follow(cbAt.at(expr)))...)
			}
		}
	}
	return raws
}

// hookOf returns the POST of a webhook's path item; another method is
// reported and left out (deliveries are POSTs).
func (b *builder) hookOf(name string, item *openapi3.PathItem, at loc) []*rawHook {
	var raws []*rawHook
	for _, method := range methodOrder {
		op := item.Operations()[method]
		if op == nil {
			continue
		}
		opAt := at.at(strings.ToLower(method))
		if name == "" {
			// The receiver could not start: a route needs a name.
			b.l.sink.warnf(opAt, op.OperationID, ruleWebhook,
				"a webhook without a name cannot be routed; it is left out")
			continue
		}
		if method != "POST" {
			b.l.sink.warnf(opAt, op.OperationID, ruleWebhook,
				"webhook %q is delivered with %s; only POST deliveries are received, so it is left out", name, method)
			continue
		}
		id := strings.TrimSpace(op.OperationID)
		if id == "" {
			id = name
		}
		raws = append(raws, &rawHook{name: name, op: op, at: opAt, goName: GoName(id)})
	}
	return raws
}

// webhook builds one webhook; nil when it has no JSON body to decode.
func (b *builder) webhook(r *rawHook) *ir.Webhook {
	id := strings.TrimSpace(r.op.OperationID)
	if id == "" {
		id = r.name
	}
	sr, key := jsonBodySchema(r.op)
	if sr == nil {
		b.l.sink.warnf(r.at, id, ruleWebhook,
			"webhook %q has no JSON request body with a schema; it is left out of the receiver", r.name)
		return nil
	}
	bodyAt := b.follow(r.at.at("requestBody"))
	payload := b.schemas.use(sr, bodyAt.at("content", key, "schema"), r.goName+"Payload")
	return &ir.Webhook{
		Name: r.name, ID: id, GoName: r.goName, EventType: eventType(sr, r.name),
		Summary: r.op.Summary, Description: r.op.Description, Deprecated: r.op.Deprecated,
		Payload: payload, Source: b.l.sink.source(r.at),
	}
}

// jsonBodySchema returns the schema of the first JSON media type of op's
// request body, by name, and its content key.
func jsonBodySchema(op *openapi3.Operation) (*openapi3.SchemaRef, string) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil, ""
	}
	c := op.RequestBody.Value.Content
	for _, key := range sortedMapKeys(c) {
		if mt := c[key]; mt != nil && mt.Schema != nil && isJSON(mediaName(key)) {
			return mt.Schema, key
		}
	}
	return nil, ""
}

// eventType is the string the payload's `type` member is pinned to (const,
// or an enum of one value), looking through allOf; else name.
func eventType(sr *openapi3.SchemaRef, name string) string {
	if t, ok := pinnedType(sr, 0); ok {
		return t
	}
	return name
}

func pinnedType(sr *openapi3.SchemaRef, depth int) (string, bool) {
	if sr == nil || sr.Value == nil || depth > 8 {
		return "", false
	}
	if p := sr.Value.Properties["type"]; p != nil && p.Value != nil {
		if s, ok := p.Value.Const.(string); ok {
			return s, true
		}
		if len(p.Value.Enum) == 1 {
			if s, ok := p.Value.Enum[0].(string); ok {
				return s, true
			}
		}
	}
	for _, m := range sr.Value.AllOf {
		if t, ok := pinnedType(m, depth+1); ok {
			return t, true
		}
	}
	return "", false
}

// uniqueEventTypes leaves a type claimed by an earlier webhook (or equal to
// an earlier webhook's name, which routing tries first) off the later one.
func (b *builder) uniqueEventTypes(hooks []*ir.Webhook, ats map[*ir.Webhook]loc) {
	claimed := map[string]string{}
	for _, w := range hooks {
		claimed[w.Name] = w.Name
	}
	for _, w := range hooks {
		if owner, ok := claimed[w.EventType]; ok && owner != w.Name {
			b.l.sink.warnf(ats[w], w.ID, ruleWebhook,
				"webhook %q's payload type %q is already %q's; it is routed by path only", w.Name, w.EventType, owner)
			w.EventType = ""
			continue
		}
		claimed[w.EventType] = w.Name
	}
}

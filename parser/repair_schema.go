package parser

import (
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// shapeCheck tells whether a schema keyword's value has a shape kin-openapi
// can decode; fix, when set, rewrites a near miss instead of dropping it.
type shapeCheck struct {
	ok   func(*yaml.Node) bool
	fix  func(*yaml.Node) bool
	want string
}

var (
	isSeq    = func(n *yaml.Node) bool { return n.Kind == yaml.SequenceNode }
	isMap    = func(n *yaml.Node) bool { return n.Kind == yaml.MappingNode }
	isScalar = func(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode }
	isBool   = func(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" }
	isNumber = func(n *yaml.Node) bool {
		return n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float")
	}
	isCount = func(n *yaml.Node) bool {
		v, err := strconv.ParseUint(n.Value, 10, 64)
		return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" && err == nil && v < 1<<53
	}
	isBoolOrNumber = func(n *yaml.Node) bool { return isBool(n) || isNumber(n) }
	isMapOrBool    = func(n *yaml.Node) bool { return isMap(n) || isBool(n) }
	isScalarList   = func(n *yaml.Node) bool { return isScalar(n) || (isSeq(n) && allScalars(n)) }
	isStringList   = func(n *yaml.Node) bool { return isSeq(n) && allScalars(n) }
	isMapList      = func(n *yaml.Node) bool { return isSeq(n) && allMaps(n) }
)

// schemaShapes lists the schema keywords whose value kin-openapi decodes into
// a fixed Go type; a value of another shape makes it refuse the whole
// document.
var schemaShapes = map[string]shapeCheck{
	"type":                 {ok: isScalarList, want: "a type name or a list of them"},
	"required":             {ok: isStringList, want: "a list of property names"},
	"enum":                 {ok: isSeq, fix: wrapInList, want: "a list of values"},
	"properties":           {ok: isMap, want: "a map of schemas"},
	"items":                {ok: isMapOrBool, fix: singleItem, want: "a schema"},
	"additionalProperties": {ok: isMapOrBool, want: "a schema or a boolean"},
	"allOf":                {ok: isMapList, want: "a list of schemas"},
	"oneOf":                {ok: isMapList, want: "a list of schemas"},
	"anyOf":                {ok: isMapList, want: "a list of schemas"},
	"not":                  {ok: isMap, want: "a schema"},
	"discriminator":        {ok: isDiscriminator, want: "an object with propertyName"},
	"nullable":             {ok: isBool, fix: boolString, want: "a boolean"},
	"readOnly":             {ok: isBool, fix: boolString, want: "a boolean"},
	"writeOnly":            {ok: isBool, fix: boolString, want: "a boolean"},
	"deprecated":           {ok: isBool, fix: boolString, want: "a boolean"},
	"uniqueItems":          {ok: isBool, fix: boolString, want: "a boolean"},
	"minimum":              {ok: isNumber, want: "a number"},
	"maximum":              {ok: isNumber, want: "a number"},
	"multipleOf":           {ok: isNumber, want: "a number"},
	"exclusiveMinimum":     {ok: isBoolOrNumber, want: "a boolean or a number"},
	"exclusiveMaximum":     {ok: isBoolOrNumber, want: "a boolean or a number"},
	"minLength":            {ok: isCount, want: "a non-negative integer"},
	"maxLength":            {ok: isCount, want: "a non-negative integer"},
	"minItems":             {ok: isCount, want: "a non-negative integer"},
	"maxItems":             {ok: isCount, want: "a non-negative integer"},
	"minProperties":        {ok: isCount, want: "a non-negative integer"},
	"maxProperties":        {ok: isCount, want: "a non-negative integer"},
	"format":               {ok: isScalar, want: "a string"},
	"pattern":              {ok: isScalar, want: "a string"},
	"title":                {ok: isScalar, want: "a string"},
	"description":          {ok: isScalar, want: "a string"},
}

// fixSchema checks the keywords of one schema object and repairs or drops
// the ones kin-openapi could not decode.
func (p *repairer) fixSchema(n *yaml.Node, s slot) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, unalias(n.Content[i+1])
		check, known := schemaShapes[k]
		if !known || v == nil || check.ok(v) {
			continue
		}
		here := loc{p.f.key, jsonpointer.Join(s.pointer(), k), v}
		if check.fix != nil && check.fix(v) {
			p.l.sink.warnf(here, "", ruleSchemaShape, "%s should be %s; repaired", k, check.want)
			p.f.repaired = true
			continue
		}
		p.l.sink.warnf(here, "", ruleSchemaShape, "%s should be %s; ignored", k, check.want)
		p.remove(slot{parent: n, index: i})
	}
}

func allScalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

func allMaps(n *yaml.Node) bool {
	for _, c := range n.Content {
		if unalias(c) == nil || unalias(c).Kind != yaml.MappingNode {
			return false
		}
	}
	return true
}

func isDiscriminator(n *yaml.Node) bool {
	if !isMap(n) {
		return false
	}
	name := mapGet(n, "propertyName")
	m := mapGet(n, "mapping")
	return name != nil && isScalar(name) && (m == nil || (isMap(m) && allScalarValues(m)))
}

func allScalarValues(n *yaml.Node) bool {
	for i := 1; i < len(n.Content); i += 2 {
		if n.Content[i].Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

// wrapInList turns `enum: x` into `enum: [x]`.
func wrapInList(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	item := *n
	*n = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{&item}, Line: n.Line, Column: n.Column}
	return true
}

// singleItem turns the tuple form `items: [schema]` into `items: schema`
// when the tuple has one member.
func singleItem(n *yaml.Node) bool {
	if n.Kind != yaml.SequenceNode || len(n.Content) != 1 || unalias(n.Content[0]).Kind != yaml.MappingNode {
		return false
	}
	*n = *unalias(n.Content[0])
	return true
}

// boolString turns the strings "true" and "false" into booleans.
func boolString(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || (n.Value != "true" && n.Value != "false") {
		return false
	}
	n.Tag, n.Style = "!!bool", 0
	return true
}

package parser

import (
	"strconv"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/jsonpointer"
)

// swaggerMethods are the operation keys of a Swagger 2.0 path item.
var swaggerMethods = []string{"get", "put", "post", "delete", "options", "head", "patch"}

// fixSwagger repairs what openapi2conv refuses outright in a Swagger 2.0
// document: an operation with both a body parameter and formData
// parameters (the body wins; the form fields are dropped with a warning).
func (l *loader) fixSwagger() {
	paths := mapGet(l.root.root, "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(paths.Content); i += 2 {
		item := unalias(paths.Content[i+1])
		itemAt := loc{l.root.key, jsonpointer.Join("/paths", paths.Content[i].Value), item}
		shared := hasParamIn(mapGet(item, "parameters"), "body")
		for _, m := range swaggerMethods {
			op := mapGet(item, m)
			if op == nil {
				continue
			}
			if shared || hasParamIn(mapGet(op, "parameters"), "body") {
				l.dropFormData(itemAt.at("parameters"))
				l.dropFormData(itemAt.at(m, "parameters"))
			}
		}
	}
}

func hasParamIn(params *yaml.Node, in string) bool {
	params = unalias(params)
	if params == nil || params.Kind != yaml.SequenceNode {
		return false
	}
	for _, p := range params.Content {
		if scalarString(mapGet(p, "in")) == in {
			return true
		}
	}
	return false
}

// dropFormData removes the formData parameters of a list, each with a warning.
func (l *loader) dropFormData(at loc) {
	params := unalias(at.node)
	if params == nil || params.Kind != yaml.SequenceNode {
		return
	}
	kept := params.Content[:0:0]
	for i, p := range params.Content {
		if scalarString(mapGet(p, "in")) == "formData" {
			l.sink.warnf(at.at(strconv.Itoa(i)), "", ruleUnsupportedParam,
				"formData parameter %q next to a body parameter cannot be sent; dropped", scalarString(mapGet(p, "name")))
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) != len(params.Content) {
		params.Content = kept
		l.root.repaired = true
	}
}

// Command excerpt cuts a small OpenAPI document out of a large one: the
// operations named on the command line and every component they reach
// through $ref, nothing else. The large-response benchmark needs clients of
// GitHub's and Stripe's list operations from every generator, and ogen's
// client of the whole GitHub document alone is 468,612 lines.
//
//	excerpt -o spec/github-repos.json github-api.json 'get /orgs/{org}/repos'
//
// It reads JSON or YAML and writes JSON (keys sorted).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

func main() {
	out := flag.String("o", "", "output file (JSON)")
	flag.BoolVar(&dropDocs, "drop-docs", false, "leave out description, summary and example texts (the decode benchmark needs shapes only)")
	flag.Parse()
	if flag.NArg() < 2 || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: excerpt -o OUT SPEC 'METHOD PATH'...")
		os.Exit(2)
	}
	if err := run(*out, flag.Arg(0), flag.Args()[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "excerpt:", err)
		os.Exit(1)
	}
}

func run(out, spec string, ops []string) error {
	src, err := os.ReadFile(spec)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil { // YAML is a superset of JSON
		return err
	}
	ex, err := cut(doc, ops)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(ex, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

// cut keeps openapi, info and servers, the named operations and the
// components their $refs reach.
func cut(doc map[string]any, ops []string) (map[string]any, error) {
	ex := map[string]any{"openapi": doc["openapi"], "info": doc["info"], "servers": doc["servers"]}
	paths := map[string]any{}
	for _, op := range ops {
		method, path, ok := strings.Cut(op, " ")
		item, _ := at(doc, "paths", path).(map[string]any)
		if !ok || item == nil || item[method] == nil {
			return nil, fmt.Errorf("no operation %q", op)
		}
		kept, _ := paths[path].(map[string]any)
		if kept == nil {
			kept = map[string]any{}
			paths[path] = kept
		}
		kept[method] = item[method]
		if p, ok := item["parameters"]; ok {
			kept["parameters"] = p
		}
	}
	ex["paths"] = paths
	components := map[string]any{}
	for _, ref := range reached(doc, paths) {
		parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
		kind, _ := components[parts[0]].(map[string]any)
		if kind == nil {
			kind = map[string]any{}
			components[parts[0]] = kind
		}
		kind[unescape(parts[1])] = at(doc, "components", parts[0], unescape(parts[1]))
	}
	ex["components"] = components
	if dropDocs {
		undocument(ex)
	}
	return ex, nil
}

// dropDocs: undocument the excerpt.
var dropDocs bool

// undocument removes description, summary and example members, except
// where they are names (a property called "description").
func undocument(n any) {
	switch n := n.(type) {
	case map[string]any:
		for k, v := range n {
			if _, isText := v.(string); isText && (k == "description" || k == "summary") {
				delete(n, k)
				continue
			}
			if k == "example" || k == "examples" {
				delete(n, k)
				continue
			}
			if k == "properties" {
				props, _ := v.(map[string]any)
				for _, p := range props {
					undocument(p)
				}
				continue
			}
			undocument(v)
		}
	case []any:
		for _, v := range n {
			undocument(v)
		}
	}
}

// reached lists every local $ref reachable from start, transitively.
func reached(doc map[string]any, start any) []string {
	seen := map[string]bool{}
	var order []string
	var walk func(any)
	walk = func(n any) {
		switch n := n.(type) {
		case map[string]any:
			for k, v := range n {
				ref, isRef := v.(string)
				if k == "$ref" && isRef && strings.HasPrefix(ref, "#/components/") && !seen[ref] {
					seen[ref] = true
					order = append(order, ref)
					parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
					walk(at(doc, "components", parts[0], unescape(parts[1])))
					continue
				}
				walk(v)
			}
		case []any:
			for _, v := range n {
				walk(v)
			}
		}
	}
	walk(start)
	return order
}

func at(n any, keys ...string) any {
	for _, k := range keys {
		m, _ := n.(map[string]any)
		n = m[k]
	}
	return n
}

func unescape(s string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
}

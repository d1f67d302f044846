package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Fixture is what --fixtures gives one operation: its body, another body
// for keyed-reuse, and parameter values by name.
type Fixture struct {
	Body   any
	Body2  any
	Params map[string]string
}

// rawFixture is a fixture as written: parameter values may be any scalar.
type rawFixture struct {
	Body   any            `json:"body"`
	Body2  any            `json:"body2"`
	Params map[string]any `json:"params"`
}

// Fixtures are the fixtures of a run, by operationId.
type Fixtures map[string]Fixture

// ParseFixtures reads a fixtures document (YAML or JSON): a mapping from
// operationId to {body, body2, params}. Unknown members are errors, so a
// misspelt "parmas" is never silently ignored.
func ParseFixtures(data []byte) (Fixtures, error) {
	var raw map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("fixtures: %w", err)
	}
	out := Fixtures{}
	for id, v := range raw {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("fixtures: %s: %w", id, err)
		}
		jd := json.NewDecoder(bytes.NewReader(b))
		jd.DisallowUnknownFields()
		var f rawFixture
		if err := jd.Decode(&f); err != nil {
			return nil, fmt.Errorf("fixtures: %s: %w (members: body, body2, params)", id, err)
		}
		params, err := scalarParams(f.Params)
		if err != nil {
			return nil, fmt.Errorf("fixtures: %s: %w", id, err)
		}
		out[id] = Fixture{Body: f.Body, Body2: f.Body2, Params: params}
	}
	return out, nil
}

// scalarParams writes each parameter value as text: a string as it is, a
// number or boolean as JSON writes it.
func scalarParams(raw map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(raw))
	for name, v := range raw {
		switch x := v.(type) {
		case string:
			out[name] = x
		case float64:
			out[name] = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			out[name] = strconv.FormatBool(x)
		default:
			return nil, fmt.Errorf("params: %s is not a string, number or boolean", name)
		}
	}
	return out, nil
}

// Unknown returns the fixtures' operationIds that ids lacks, sorted.
func (f Fixtures) Unknown(ids []string) []string {
	var out []string
	for id := range f {
		found := false
		for _, x := range ids {
			found = found || x == id
		}
		if !found {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// String lists the fixtures' operations, for messages.
func (f Fixtures) String() string {
	ids := make([]string, 0, len(f))
	for id := range f {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}

package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// Fixture is what --fixtures gives one operation: its body, another body
// for keyed-reuse, and parameter values by name.
type Fixture struct {
	Body   any               `json:"body" yaml:"body"`
	Body2  any               `json:"body2" yaml:"body2"`
	Params map[string]string `json:"params" yaml:"params"`
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
		var f Fixture
		if err := jd.Decode(&f); err != nil {
			return nil, fmt.Errorf("fixtures: %s: %w (members: body, body2, params)", id, err)
		}
		out[id] = f
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

package mock

import (
	"fmt"

	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/overlay"
	"github.com/idemgen/idemgen/internal/yamltree"
)

// applyOverlays applies the overlay files, in order, to the document's
// bytes and returns the overlaid document (re-encoded only when an overlay
// changed it) and a line per finding. It is the parser's overlay stage
// (internal/overlay) without the parser: the mock serves what kin-openapi
// loads, so it needs the overlaid bytes, not the parser's model.
func applyOverlays(path string, data []byte, files []string) ([]byte, []string, error) {
	if len(files) == 0 {
		return data, nil, nil
	}
	docs := make([]*overlay.Document, len(files))
	for i, f := range files {
		d, err := overlay.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		docs[i] = d
	}
	var top yaml.Node
	if err := yaml.Unmarshal(data, &top); err != nil || len(top.Content) == 0 || top.Content[0].Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s: cannot apply overlays: not a YAML or JSON object", path)
	}
	res, err := overlay.Apply(top.Content[0], docs)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	for _, f := range res.Findings {
		warnings = append(warnings, fmt.Sprintf("warning: %s:%d:%d: %s [%s]", f.File, f.Line, f.Column, f.Message, f.Rule))
	}
	if !res.Changed {
		return data, warnings, nil
	}
	out, err := yamltree.Encode(top.Content[0])
	return out, warnings, err
}

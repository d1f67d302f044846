package parser

import (
	"errors"

	"github.com/idemgen/idemgen/internal/overlay"
	"github.com/idemgen/idemgen/ir"
)

// applyOverlays is stage 1's last step: the overlays named by
// Options.Overlays are read and applied, in order, to the root file's tree,
// before the repair stage sees it, so everything after (repairs, $ref
// confinement, kin-openapi, the checks) reads the overlaid document. Nodes an
// overlay added keep the overlay's positions and are recorded in the sink,
// which then locates findings about them in the overlay file. A target that
// selects nothing is a warning located at that action. An overlay that
// cannot be read or is not Overlay 1.0 is the returned error: ir.Diagnostics
// holding one error (rule overlay) located in the overlay file.
func (l *loader) applyOverlays() error {
	if len(l.opts.Overlays) == 0 {
		return nil
	}
	docs := make([]*overlay.Document, len(l.opts.Overlays))
	for i, path := range l.opts.Overlays {
		d, err := overlay.ReadFile(path)
		if err != nil {
			return overlayError(err)
		}
		docs[i] = d
	}
	res, err := overlay.Apply(l.root.root, docs)
	if err != nil {
		return overlayError(err)
	}
	if res.Changed {
		// kin-openapi must read the overlaid tree, not the file's bytes.
		l.root.repaired = true
	}
	l.sink.origins = res.Origins
	for _, f := range res.Findings {
		l.sink.list = append(l.sink.list, ir.Diagnostic{
			Severity: ir.SeverityWarning, Rule: f.Rule, File: f.File, Line: f.Line, Column: f.Column, Message: f.Message,
		})
	}
	return nil
}

// overlayError turns a located overlay error into a diagnostic, so commands
// print it like any other finding (`error: ov.yaml:1:10: ... [overlay]`).
func overlayError(err error) error {
	var e *overlay.Error
	if !errors.As(err, &e) {
		return err
	}
	return ir.Diagnostics{{Severity: ir.SeverityError, Rule: ruleOverlay, File: e.File, Line: e.Line, Column: e.Column,
		Pointer: e.Pointer, Message: e.Message}}
}

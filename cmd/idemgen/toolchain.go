package main

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/idemgen/idemgen/ir"
)

// toolchain is what the commands call to load and generate. The real one
// wraps the parser and the generator; tests provide fakes to simulate
// failures the real packages would need a broken spec to produce.
type toolchain struct {
	// load reads a spec into the IR. diags holds errors and warnings about
	// the document; err reports a spec that could not be loaded at all.
	load func(path string, ls loadSettings) (api *ir.API, diags ir.Diagnostics, err error)
	// generate renders the client files, sorted by name. skipped lists the
	// operations left out under s.SkipUnsupported.
	generate func(api *ir.API, s genSettings) (files []genFile, skipped ir.Diagnostics, err error)
	// check lists what generate would refuse in api, for lint; nil checks
	// nothing.
	check func(api *ir.API) ir.Diagnostics
	// now is the clock of `ledger` (ages, stuck leases); nil is time.Now.
	now func() time.Time
}

// genFile is one rendered file of the generated package.
type genFile struct {
	Name    string
	Content []byte
}

// safeLoad calls tc.load and turns a panic into an error, so a hostile spec
// that trips a bug in a dependency still gets a message naming the spec
// instead of a crash.
func (tc toolchain) safeLoad(path string, ls loadSettings) (api *ir.API, diags ir.Diagnostics, err error) {
	defer func() {
		if r := recover(); r != nil {
			api, diags, err = nil, nil, fmt.Errorf("internal error while loading %s (please report it): %v\n%s", path, r, debug.Stack())
		}
	}()
	return tc.load(path, ls)
}

// loadSettings are the flags every command that loads a spec shares.
type loadSettings struct {
	// AllowRemoteRefs lets $refs name http(s) URLs (--allow-remote-refs).
	AllowRemoteRefs bool
	// RefRoot is a folder local $refs may read beside the spec's own folder
	// tree (--ref-root).
	RefRoot string
	// Overlays are OpenAPI Overlay files applied in order (--overlay).
	Overlays []string
}

// safeGenerate calls tc.generate and turns a panic into an error.
func (tc toolchain) safeGenerate(api *ir.API, s genSettings) (files []genFile, skipped ir.Diagnostics, err error) {
	defer func() {
		if r := recover(); r != nil {
			files, skipped, err = nil, nil, fmt.Errorf("internal error while generating (please report it): %v\n%s", r, debug.Stack())
		}
	}()
	return tc.generate(api, s)
}

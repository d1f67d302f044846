package parser

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"

	"github.com/idemgen/idemgen/internal/yamltree"
	"github.com/idemgen/idemgen/ir"
)

// Options tune Load.
type Options struct {
	// AllowRemoteRefs lets $refs name http(s) URLs; they are refused
	// (an error diagnostic, the reference replaced) unless set.
	AllowRemoteRefs bool
	// RefRoot is a folder whose files local $refs may also read. Without it
	// they may only read files in the folder tree of the root document (for
	// LoadData, the current directory); a reference that leaves it, as
	// written or through a symbolic link, is an error (rule ref-outside).
	RefRoot string
	// Overlays are OpenAPI Overlay 1.0 files applied, in order, to the root
	// document before it is repaired and checked (see applyOverlays).
	// Findings about a value an overlay added are located in the overlay.
	Overlays []string

	// bytesOnly and trace are for the parser's own tests: bytesOnly turns
	// kinDecodeTree off, trace records whether it was used.
	bytesOnly bool
	trace     *loadTrace
}

// loadTrace records which way a load took.
type loadTrace struct {
	treeDecoded bool
}

// Load reads the document at path (YAML or JSON; OpenAPI 3.0.x, 3.1.x, 3.2.x (read as 3.1), or
// Swagger 2.0 converted with openapi2conv), follows relative file $refs,
// repairs what can be repaired (each repair a located warning), and builds
// the IR. diags holds every finding (errors and warnings, lint rules
// included), sorted by file, line, column, pointer. err is non-nil only when
// nothing usable could be loaded (unreadable file, not an OpenAPI document, an
// overlay that cannot be used); then it names the file (for an overlay,
// ir.Diagnostics with one error located in it). When diags.HasErrors() the API may be partial.
func Load(path string, opts Options) (api *ir.API, diags ir.Diagnostics, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	key := filepath.ToSlash(filepath.Clean(path))
	return load(key, path, filepath.Dir(path), data, opts)
}

// LoadData is Load for bytes already in memory (fuzzing, tests); name is used
// in diagnostics; relative refs resolve against the current directory.
func LoadData(name string, data []byte, opts Options) (*ir.API, ir.Diagnostics, error) {
	key := path.Base(filepath.ToSlash(name))
	if key == "." || key == "/" {
		key = "document"
	}
	return load(key, name, ".", data, opts)
}

// unwrapPathError drops the *fs.PathError wrapper, whose text repeats the
// path the caller already prints.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// loader holds one load's state: the files of the document set in discovery
// order, and the diagnostics found so far.
type loader struct {
	opts  Options
	roots refRoots
	files map[string]*docFile
	order []string
	root  *docFile
	sink  *diagSink
	// refusals remembers refuseRead's verdict on each file key.
	refusals map[string]string
}

// load runs the parser's four stages, each in its own files:
//
//  1. load (load.go, tree.go, jsontree.go, budget.go, refroot.go): read the
//     root file into the parser's own YAML node tree; referenced files are
//     read the same way when stage 2 meets their $refs;
//  2. repair (repair*.go): walk every tree and fix, in place, what would make
//     kin-openapi refuse the whole document, each fix a located warning;
//  3. kin load (kinload.go): hand the repaired bytes to kin-openapi, fixing
//     and retrying what its decoder still refuses (repair_kinerror.go);
//  4. build (build.go, params.go, operation_io.go, schema*.go, contract.go,
//     extensions.go): kin-openapi's model plus the trees -> *ir.API.
func load(key, display, dir string, data []byte, opts Options) (*ir.API, ir.Diagnostics, error) {
	l := &loader{opts: opts, roots: newRefRoots(dir, opts.RefRoot), files: map[string]*docFile{}, refusals: map[string]string{}}
	l.sink = &diagSink{files: l.files}
	version, swagger, err := l.loadRoot(key, display, data)
	if err != nil {
		return nil, nil, err
	}
	if err := l.applyOverlays(); err != nil {
		return nil, nil, err
	}
	l.repair(swagger)
	doc, err := l.kinLoad(swagger)
	if err != nil {
		at := loc{key, "", l.root.root}
		l.sink.errorf(at, "", ruleLoad, "kin-openapi cannot load the document: %v", err)
		api := &ir.API{OpenAPI: version, Source: l.sink.source(at)}
		return api, l.sink.sorted(), nil
	}
	api := build(l, doc, version)
	return api, l.sink.sorted(), nil
}

// loadRoot is stage 1 for the root file: parse it into a tree and read its
// version. The error names the file.
func (l *loader) loadRoot(key, display string, data []byte) (version string, swagger bool, err error) {
	root, err := parseTree(data)
	if errors.Is(err, errNodeBudget) {
		return "", false, fmt.Errorf("%s: %w", display, err)
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: not a YAML or JSON document: %w", display, err)
	}
	version, swagger, err = detectVersion(root)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", display, err)
	}
	l.root = &docFile{key: key, display: display, root: root, data: data}
	l.files[key] = l.root
	l.order = append(l.order, key)
	return version, swagger, nil
}

// uriKey turns a location kin-openapi asks for into a file key.
func uriKey(u *url.URL) string {
	if u.Scheme == "" {
		return path.Clean(u.Path)
	}
	return u.String()
}

// detectVersion reads `openapi` or `swagger` from the root.
func detectVersion(root *yaml.Node) (version string, swagger bool, err error) {
	if root.Kind != yaml.MappingNode {
		return "", false, errors.New("not an OpenAPI document (the top level is not an object)")
	}
	if v := mapGet(root, "openapi"); v != nil && v.Kind == yaml.ScalarNode {
		if !strings.HasPrefix(v.Value, "3.") {
			return "", false, fmt.Errorf("OpenAPI version %q is not supported (3.0.x, 3.1.x, 3.2.x and Swagger 2.0 are)", v.Value)
		}
		return v.Value, false, nil
	}
	if v := mapGet(root, "swagger"); v != nil && v.Kind == yaml.ScalarNode {
		if v.Value != "2.0" {
			return "", false, fmt.Errorf("Swagger version %q is not supported (2.0 is)", v.Value)
		}
		return "2.0", true, nil
	}
	return "", false, errors.New("not an OpenAPI document (no `openapi` or `swagger` field)")
}

// file returns the parsed file with the given key, reading (or, when
// allowed, fetching) and parsing it on first use; nil when it cannot be had.
func (l *loader) file(key string) *docFile {
	if f, ok := l.files[key]; ok {
		if f.root == nil {
			return nil
		}
		return f
	}
	f := &docFile{key: key, display: key}
	l.files[key] = f
	data, err := l.read(key)
	if err != nil {
		f.root = nil
		return nil
	}
	root, err := parseTree(data)
	if err != nil || root.Kind == yaml.ScalarNode {
		// Not a document (a scalar is any text file): it is reported as a
		// reference that cannot be loaded, never quoted.
		return nil
	}
	f.root, f.data = root, data
	l.order = append(l.order, key)
	return f
}

// remoteLimit bounds a fetched document.
const remoteLimit = 64 << 20

var remoteClient = &http.Client{Timeout: 30 * time.Second}

// read returns the bytes of a file of the document set: a local file inside
// the allowed folder trees, or, when allowed, an http(s) URL.
func (l *loader) read(key string) ([]byte, error) {
	if !isRemote(key) {
		if err := l.roots.check(key); err != nil {
			return nil, err
		}
		return os.ReadFile(filepath.FromSlash(key))
	}
	if !l.opts.AllowRemoteRefs {
		return nil, errors.New("remote references are not allowed")
	}
	if err := checkRemote(key); err != nil {
		return nil, err
	}
	resp, err := remoteClient.Get(key)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", key, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, remoteLimit))
}

// bytesOf returns what kin-openapi reads for a file: the original bytes, or
// the repaired tree re-encoded (yamltree.Encode leaves the tree as it is).
func (f *docFile) bytesOf() ([]byte, error) {
	if !f.repaired {
		return f.data, nil
	}
	return yamltree.Encode(f.root)
}

// serve is kin-openapi's ReadFromURIFunc: it only ever hands out files the
// pre-pass loaded (and repaired), so kin-openapi reads nothing on its own.
func (l *loader) serve(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	key := uriKey(u)
	f, ok := l.files[key]
	if !ok || f.root == nil {
		return nil, fmt.Errorf("%s was not loaded by the pre-pass", key)
	}
	return f.bytesOf()
}

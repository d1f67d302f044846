package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/annotate"
	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/parser"
)

// annotateFlags are the options of `idemgen annotate`.
type annotateFlags struct {
	write      bool
	keyHeader  string
	overlayOut string
}

func newAnnotateCmd() *cobra.Command {
	var flags annotateFlags
	cmd := &cobra.Command{
		Use:   "annotate SPEC... [-w]",
		Short: "Add the missing x-idempotent extensions to OpenAPI documents",
		Long:  annotateLong,
		Example: `  idemgen annotate api/orders.yaml            # review the diff
  idemgen annotate -w api/orders.yaml         # rewrite the file
  idemgen annotate api/orders.yaml | git apply
  idemgen annotate --key-header Idempotency-Key --overlay-out stripe.overlay.yaml stripe.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := flags.validate(args); err != nil {
				return err
			}
			failed := false
			for _, spec := range args {
				if err := annotateOne(spec, flags, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "idemgen: %s: %v\n", spec, err)
					failed = true
				}
			}
			if failed {
				return errProblemsPrinted
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&flags.write, "write", "w", false, "rewrite the files instead of printing a diff")
	f.StringVar(&flags.keyHeader, "key-header", "", "key every unannotated POST and PATCH with this idempotency-key header")
	f.StringVar(&flags.overlayOut, "overlay-out", "", "write the annotations as an OpenAPI Overlay to FILE (- for standard output) instead of a diff")
	_ = cmd.MarkFlagFilename("overlay-out", "yaml", "yml")
	return cmd
}

func (f annotateFlags) validate(specs []string) error {
	switch {
	case f.keyHeader != "" && !annotate.ValidKeyHeader(f.keyHeader):
		return usageErrorf("--key-header %q is not a header name of letters, digits, '-', '_' and '.' starting with a letter", f.keyHeader)
	case f.overlayOut != "" && f.write:
		return usageErrorf("--overlay-out and -w exclude each other: the overlay leaves the spec as it is")
	case f.overlayOut != "" && len(specs) > 1:
		return usageErrorf("--overlay-out takes one SPEC (an overlay targets one document)")
	}
	return nil
}

func annotateOne(spec string, flags annotateFlags, stdout, stderr io.Writer) error {
	src, err := os.ReadFile(spec)
	if err != nil {
		return err
	}
	opts := inferred(spec)
	opts.KeyHeader = flags.keyHeader
	res, err := opts.Annotate(src)
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "note: %s:%s\n", spec, n)
	}
	if len(res.Edits) == 0 && len(res.Pages) == 0 && len(res.Waiters) == 0 && len(res.Lookups) == 0 {
		if flags.overlayOut != "" {
			fmt.Fprintf(stderr, "%s: every operation is annotated; no overlay written\n", spec)
		}
		return nil
	}
	if flags.overlayOut != "" {
		return writeOverlay(spec, flags.overlayOut, res, stdout, stderr)
	}
	if !flags.write {
		name := diffName(spec)
		_, err := stdout.Write(annotate.Unified(name, name, src, res.Annotated))
		return err
	}
	if err := replaceFile(spec, res.Annotated); err != nil {
		return err
	}
	if len(res.Edits) > 0 {
		fmt.Fprintf(stderr, "%s: added x-idempotent to %s\n", spec, plural(len(res.Edits), "operation"))
	}
	if len(res.Pages) > 0 {
		fmt.Fprintf(stderr, "%s: added the inferred x-pagination to %s\n", spec, plural(len(res.Pages), "operation"))
	}
	if len(res.Waiters) > 0 {
		fmt.Fprintf(stderr, "%s: added the proposed x-waiters to %s\n", spec, plural(len(res.Waiters), "operation"))
	}
	if len(res.Lookups) > 0 {
		fmt.Fprintf(stderr, "%s: added the proposed x-lookup to %s\n", spec, plural(len(res.Lookups), "operation"))
	}
	return nil
}

// inferred returns the pagination contracts, the waiters and the lookups
// the parser infers for the spec's unannotated operations, for annotate to
// write; none when the spec does not load without errors.
func inferred(spec string) annotate.Options {
	api := loadClean(spec)
	if api == nil {
		return annotate.Options{}
	}
	return annotate.Options{Pagination: inferredPages(api), Waiters: inferredWaiters(api), Lookup: inferredLookups(api)}
}

// inferredLookups returns the x-lookup values parser.InferLookups
// proposes, as annotate writes them.
func inferredLookups(api *ir.API) func(method, path string) *annotate.Lookup {
	out := map[string]*annotate.Lookup{}
	for key, lk := range parser.InferLookups(api) {
		al := &annotate.Lookup{OperationID: lk.Operation.ID, In: string(lk.Key.In), Name: lk.Key.Name, Found: lk.Found}
		if lk.Member == "" {
			// No body member gives a default match: write the one inferred.
			al.Match = lk.Match
		}
		out[key] = al
	}
	return func(method, path string) *annotate.Lookup { return out[method+" "+path] }
}

// loadClean loads spec, or returns nil when it has errors.
func loadClean(spec string) *ir.API {
	var api *ir.API
	func() {
		defer func() { _ = recover() }() // annotate still adds x-idempotent
		a, diags, err := parser.Load(spec, parser.Options{})
		if err == nil && !diags.HasErrors() {
			api = a
		}
	}()
	return api
}

// inferredPages returns the pagination contracts the parser infers for
// the unannotated operations (lint's pagination-inferred findings).
func inferredPages(api *ir.API) func(method, path string) []annotate.Member {
	pages := map[string][]annotate.Member{}
	for _, op := range api.Operations {
		if p := op.Pagination; p != nil && p.Level == ir.LevelInferred && op.Query == "" {
			pages[op.Method+" "+op.Path] = pageMembers(p)
		}
	}
	return func(method, path string) []annotate.Member { return pages[method+" "+path] }
}

// inferredWaiters returns the waiters parser.InferWaiters proposes, as
// annotate writes them (the field as the bare member name it is).
func inferredWaiters(api *ir.API) func(method, path string) []annotate.Waiter {
	out := map[string][]annotate.Waiter{}
	for key, ws := range parser.InferWaiters(api) {
		for _, w := range ws {
			aw := annotate.Waiter{Name: w.Name, Field: strings.TrimPrefix(w.Until.Pointer, "/"), Until: w.Until.In}
			if w.FailOn != nil {
				aw.FailOn = w.FailOn.In
			}
			out[key] = append(out[key], aw)
		}
	}
	return func(method, path string) []annotate.Waiter { return out[method+" "+path] }
}

// pageMembers writes a contract as x-pagination members, in the order of
// docs/extensions.md's table.
func pageMembers(p *ir.Pagination) []annotate.Member {
	ms := []annotate.Member{{Name: "kind", Value: string(p.Kind)}}
	for _, m := range []struct {
		name  string
		value string
		set   bool
	}{
		{"param", p.Param, p.Param != ""}, {"cursor", p.Cursor.String(), p.Cursor != nil},
		{"lastItem", p.LastItem.String(), p.LastItem != nil}, {"next", p.Next.String(), p.Next != nil},
		{"items", p.Items.String(), p.Items != nil}, {"limit", p.Limit, p.Limit != ""},
		{"hasMore", p.HasMore.String(), p.HasMore != nil}, {"total", p.Total.String(), p.Total != nil},
	} {
		if m.set {
			ms = append(ms, annotate.Member{Name: m.name, Value: m.value})
		}
	}
	return ms
}

// writeOverlay writes the edits as an overlay document to out ("-" is
// standard output); its `extends` names the spec relative to out's folder.
func writeOverlay(spec, out string, res *annotate.Result, stdout, stderr io.Writer) error {
	title := "idemgen x-idempotent annotations for " + filepath.Base(spec)
	extends := filepath.ToSlash(spec)
	if out == "-" {
		_, err := stdout.Write(res.Overlay(title, extends))
		return err
	}
	if abs, err := filepath.Abs(spec); err == nil {
		if dir, err := filepath.Abs(filepath.Dir(out)); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil {
				extends = filepath.ToSlash(rel)
			}
		}
	}
	if err := replaceFile(out, res.Overlay(title, extends)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: wrote x-idempotent for %s to %s\n", spec, plural(len(res.Edits), "operation"), out)
	if len(res.Pages) > 0 {
		fmt.Fprintf(stderr, "%s: wrote the inferred x-pagination for %s to %s\n", spec, plural(len(res.Pages), "operation"), out)
	}
	if len(res.Waiters) > 0 {
		fmt.Fprintf(stderr, "%s: wrote the proposed x-waiters for %s to %s\n", spec, plural(len(res.Waiters), "operation"), out)
	}
	if len(res.Lookups) > 0 {
		fmt.Fprintf(stderr, "%s: wrote the proposed x-lookup for %s to %s\n", spec, plural(len(res.Lookups), "operation"), out)
	}
	return nil
}

// replaceFile rewrites path atomically: the new content goes to a temporary
// file in the same directory, which is then renamed over the original, so
// an interrupted run never leaves a half-written spec. The mode is kept; a
// new file gets 0644.
func replaceFile(path string, content []byte) error {
	mode := os.FileMode(0o644)
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		mode = fi.Mode().Perm()
	case !os.IsNotExist(err):
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".idemgen-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once the rename succeeded
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// annotateLong is the command's --help text.
const annotateLong = `Add x-idempotent to every operation that lacks it, as a baseline to review:

  GET, HEAD, OPTIONS, TRACE, PUT, DELETE        x-idempotent: true
  POST, PATCH with an Idempotency-Key header    x-idempotent: {key: {in: header, name: <its name>}}
  other POST, PATCH                             x-idempotent: false

An operation that already has x-idempotent, or whose path item has it, is left alone.
The key header is found case-insensitively, inline or through a $ref inside the same
file, on the operation or its path item.

It also adds the x-pagination that lint reports as inferred (pagination-inferred)
to every operation whose path item has none either, e.g.
  x-pagination: {kind: link, limit: per_page}
and proposes x-waiters for a GET of a resource a POST creates whose status enum
has a success state (docs/extensions.md, "Proposed waiters"), e.g.
  x-waiters: [{name: PaymentSucceeded, until: {field: status, in: [succeeded]}, failOn: {field: status, in: [failed, canceled]}}]
and proposes x-lookup for a POST (or other unsafe or keyed operation) whose result a
GET on its path or below finds by a parameter named like its idempotency key or a
client reference its body carries (docs/extensions.md, "Proposed lookups"), e.g.
  x-lookup: {operationId: listPayments, key: {in: query, name: client_reference}, found: /data/0}

--key-header NAME keys every POST and PATCH that has neither x-idempotent nor a
declared key header with that header: x-idempotent: {key: {in: header, name: NAME}}
(for APIs that accept an idempotency key on every call without declaring it, as
Stripe does with Idempotency-Key).

--overlay-out FILE writes the same annotations as an OpenAPI Overlay 1.0 document
(one action per operation, e.g. target $.paths['/orders'].post, update
{x-idempotent: ...}) and leaves the spec untouched: pass it to generate, lint and
mock with --overlay, and re-run annotate when the spec's owner publishes a new one.

By default the changes are printed as a unified diff (apply it with git apply or
patch -p1); -w rewrites the files instead. Only the new lines are added: comments, key
order, quoting and indentation stay byte for byte, and JSON stays JSON.

Operations annotate cannot edit safely (a shared YAML anchor, a parameter $ref into
another file) are reported as notes on stderr.`

// diffName is the file name a diff header carries: relative to the working
// directory, as `git apply` and `patch -p1` run from there expect (an
// absolute path would become "a//abs/path", which neither accepts).
func diffName(spec string) string {
	if filepath.IsAbs(spec) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, spec); err == nil {
				spec = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(spec))
}

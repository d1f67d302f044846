package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/annotate"
)

func newAnnotateCmd() *cobra.Command {
	var write bool
	cmd := &cobra.Command{
		Use:   "annotate SPEC... [-w]",
		Short: "Add the missing x-idempotent extensions to OpenAPI documents",
		Long:  annotateLong,
		Example: `  idemgen annotate api/orders.yaml            # review the diff
  idemgen annotate -w api/orders.yaml         # rewrite the file
  idemgen annotate api/orders.yaml | git apply`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			failed := false
			for _, spec := range args {
				if err := annotateOne(spec, write, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
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
	cmd.Flags().BoolVarP(&write, "write", "w", false, "rewrite the files instead of printing a diff")
	return cmd
}

func annotateOne(spec string, write bool, stdout, stderr io.Writer) error {
	src, err := os.ReadFile(spec)
	if err != nil {
		return err
	}
	res, err := annotate.Annotate(src)
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "note: %s:%s\n", spec, n)
	}
	if len(res.Edits) == 0 {
		return nil
	}
	if !write {
		name := diffName(spec)
		_, err := stdout.Write(annotate.Unified(name, name, src, res.Annotated))
		return err
	}
	if err := replaceFile(spec, res.Annotated); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: added x-idempotent to %s\n", spec, plural(len(res.Edits), "operation"))
	return nil
}

// replaceFile rewrites path atomically: the new content goes to a temporary
// file in the same directory, which is then renamed over the original, so
// an interrupted run never leaves a half-written spec. The mode is kept.
func replaceFile(path string, content []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
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
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
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

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/specdiff"
)

type diffFlags struct {
	format string
	all    bool
	load   loadSettings
}

func newDiffCmd(tc toolchain) *cobra.Command {
	var flags diffFlags
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Report what NEW breaks for a client generated from OLD, the retry contract first",
		Long:  diffLong,
		Example: `  idemgen diff api/orders.v1.yaml api/orders.yaml
  git show main:api/orders.yaml > /tmp/orders.main.yaml && idemgen diff /tmp/orders.main.yaml api/orders.yaml
  idemgen diff --format github old.yaml api/orders.yaml   # annotations in a GitHub Actions step
  idemgen diff --all --format json old.yaml new.yaml | jq '.[] | select(.area == "retry-contract")'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch flags.format {
			case "text", "json", "github":
			default:
				return usageErrorf("--format must be text, json or github, not %q", flags.format)
			}
			return runDiff(tc, args[0], args[1], flags, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.format, "format", "text", "output format: text, json or github (workflow annotations)")
	f.BoolVar(&flags.all, "all", false, "list the changes that break nothing too")
	f.BoolVar(&flags.load.AllowRemoteRefs, "allow-remote-refs", false, "follow $refs to http(s) URLs")
	f.StringVar(&flags.load.RefRoot, "ref-root", "", "let local $refs also read files under DIR (default: only each spec's folder tree)")
	cmd.Flags().StringArrayVar(&flags.load.Overlays, "overlay", nil,
		"OpenAPI Overlay 1.0 file to apply to both specs before comparing (repeatable, applied in order)")
	_ = cmd.MarkFlagDirname("ref-root")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "github"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// exitTrouble is diff's status for a spec it cannot compare, as diff(1)
// uses 2 for trouble: 1 means "breaking", and a spec that does not load must
// not read as one.
const exitTrouble = exitUsage

func runDiff(tc toolchain, oldPath, newPath string, flags diffFlags, stdout, stderr io.Writer) error {
	old, err := loadForDiff(tc, oldPath, flags.load, stderr)
	if err != nil {
		return err
	}
	api, err := loadForDiff(tc, newPath, flags.load, stderr)
	if err != nil {
		return err
	}
	all := specdiff.Compare(old, api)
	shown := all
	if !flags.all {
		shown = breakingOnly(all)
	}
	switch flags.format {
	case "json":
		err = writeDiffJSON(stdout, shown)
	case "github":
		err = writeDiffGitHub(stdout, shown)
	default:
		err = writeDiffText(stdout, all, shown)
	}
	if err != nil {
		return problemf("writing the report: %v", err)
	}
	if specdiff.Breaking(all) {
		return errProblemsPrinted
	}
	return nil
}

// loadForDiff loads one side. A spec that cannot be loaded, or that has
// errors (its IR would be partial, and the comparison wrong), stops the
// command with its located errors on stderr and exit 2.
func loadForDiff(tc toolchain, path string, ls loadSettings, stderr io.Writer) (*ir.API, error) {
	api, diags, err := tc.safeLoad(path, ls)
	var ds ir.Diagnostics
	if errors.As(err, &ds) {
		diags, err = append(diags, ds...), nil
	}
	switch {
	case err != nil:
		return nil, &exitError{code: exitTrouble, err: err}
	case diags.HasErrors():
		errs, _ := diags.Errors().(ir.Diagnostics)
		printDiagnostics(stderr, errs)
		return nil, &exitError{code: exitTrouble, err: fmt.Errorf("%s has errors; nothing compared", path)}
	case api == nil:
		return nil, &exitError{code: exitTrouble, err: fmt.Errorf("loading %s produced no document", path)}
	}
	return api, nil
}

func breakingOnly(cs []specdiff.Change) []specdiff.Change {
	var out []specdiff.Change
	for _, c := range cs {
		if c.Breaking {
			out = append(out, c)
		}
	}
	return out
}

// diffLong is the command's --help text.
const diffLong = `Compare two versions of an OpenAPI document and report what NEW breaks for a client
generated from OLD.

Both documents are loaded as generate loads them, and compared as idemgen's IR, where every
$ref is resolved, every retry contract decided and every Go name chosen. Breaking changes
come first, the retry contract before the Go surface:

  retry contract   an operation no longer keyed, or keyed by another header; idempotent
                   becoming unsafe; a status added to or removed from what the old client
                   retries; a required If-Match added
  Go surface       a removed operation, parameter, member, type, enum value, union variant,
                   success response or media type; a changed Go type; a parameter, member or
                   body made required; a renamed method, field or constant

--all lists the changes that break nothing too. Each change is printed as
"breaking: file:line:col: operation (pointer): message [rule]", located in NEW (for
something removed, at the nearest place NEW still has, with "was OLD:line"). --format json
prints one JSON array; --format github prints GitHub Actions workflow commands (::error for
a breaking change, ::notice for the others).

Exit status: 0 when nothing breaks, 1 when something does, 2 for usage errors and for a
spec that cannot be loaded or has errors (printed like lint's).`

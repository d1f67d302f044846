package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemgen/idemgen/ir"
	"github.com/idemgen/idemgen/mock"
	"github.com/idemgen/idemgen/verify"
)

// The environment variables verify reads credentials from, so that they
// stay out of the command line (and out of ps and shell history).
const (
	envVerifyBearer  = "IDEMGEN_VERIFY_BEARER"
	envVerifyHeaders = "IDEMGEN_VERIFY_HEADERS"
)

type verifyFlags struct {
	server      string
	allowWrites bool
	operations  []string
	fixtures    string
	bearer      string
	headers     []string
	format      string
	timeout     time.Duration
	overlays    []string
}

func newVerifyCmd(tc toolchain) *cobra.Command {
	var flags verifyFlags
	cmd := &cobra.Command{
		Use:   "verify SPEC --server URL --allow-writes",
		Short: "Check a running server against the spec's retry contract",
		Long: `verify sends requests to a running server and checks, per operation, what the spec's
retry contract promises: a keyed operation replays a repeated key, refuses a used key
with another body, executes two concurrent twins once; an unsafe operation without a
key has an x-lookup; If-Match refuses a stale ETag with 412; 429 and 503 carry a
Retry-After the runtime reads; the server's retry signals agree with
x-retryable-status; a request without credentials gets 401 or 403.

It sends writes (creates, updates, deletes), so it refuses to run without
--allow-writes: point it at a staging server. Bodies are the spec's examples, else the
smallest body the schema allows; --fixtures FILE gives bodies and parameters per
operationId. Credentials: --bearer, --header 'Name: value', or the environment
(IDEMGEN_VERIFY_BEARER, IDEMGEN_VERIFY_HEADERS with one 'Name: value' per line);
they are never printed.

Exit status: 0 every check passed, 1 a check failed, 2 usage or spec errors.
See docs/cli.md#verify.`,
		Example: `  IDEMGEN_VERIFY_BEARER=sk_test_123 idemgen verify api.yaml --server http://127.0.0.1:8080/v1 --allow-writes
  idemgen verify api.yaml --server $URL --allow-writes --operations createPayment,updateOrder --fixtures fixtures.yaml --format github`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), tc, args[0], flags, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.server, "server", "", "base URL of the server under test (the operations' paths are appended)")
	f.BoolVar(&flags.allowWrites, "allow-writes", false, "allow the writes the checks send (required)")
	f.StringSliceVar(&flags.operations, "operations", nil, "check only these operationIds (comma-separated)")
	f.StringVar(&flags.fixtures, "fixtures", "", "YAML or JSON file of bodies and parameters per operationId")
	f.StringVar(&flags.bearer, "bearer", "", "bearer token sent as Authorization (prefer "+envVerifyBearer+")")
	f.StringArrayVar(&flags.headers, "header", nil, "a header 'Name: value' sent with every request (repeatable)")
	f.StringVar(&flags.format, "format", "text", "output format: text, json or github")
	f.DurationVar(&flags.timeout, "timeout", 30*time.Second, "limit of each request")
	f.StringArrayVar(&flags.overlays, "overlay", nil, "an OpenAPI Overlay file applied to the spec (repeatable)")
	return cmd
}

// runVerify checks the flags, loads the spec and its inputs, runs the
// checks and prints the report.
func runVerify(ctx context.Context, tc toolchain, spec string, flags verifyFlags, stdout, stderr io.Writer) error {
	opts, err := verifyOptions(flags)
	if err != nil {
		return err
	}
	api, err := loadForVerify(tc, spec, loadSettings{Overlays: flags.overlays}, stderr)
	if err != nil {
		return err
	}
	inputs, closeInputs, err := verifyInputs(spec, flags, stderr)
	if err != nil {
		return err
	}
	defer closeInputs()
	opts.Inputs = inputs
	if ctx == nil {
		ctx = context.Background()
	}
	rep, err := verify.Run(ctx, api, opts)
	if errors.Is(err, verify.ErrUnknownOperation) {
		return usageErrorf("--operations: %v", err)
	}
	if err != nil {
		return problemf("%v", err)
	}
	printVerify(stdout, flags.format, spec, rep)
	if rep.Failed() {
		return errProblemsPrinted
	}
	return nil
}

// verifyOptions checks the flags (usage errors, exit 2) and gathers the
// credentials: the environment's, then the flags'.
func verifyOptions(flags verifyFlags) (verify.Options, error) {
	var opts verify.Options
	switch {
	case !flags.allowWrites:
		return opts, usageErrorf("verify sends writes (creates, updates, deletes) to the server: run it against a server you may change, with --allow-writes")
	case flags.server == "":
		return opts, usageErrorf("--server URL is required")
	case flags.format != "text" && flags.format != "json" && flags.format != "github":
		return opts, usageErrorf("--format must be text, json or github, not %q", flags.format)
	}
	u, err := url.Parse(flags.server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return opts, usageErrorf("--server must be an http or https URL")
	}
	header, secrets, err := verifyCredentials(flags)
	if err != nil {
		return opts, err
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		secrets = append(secrets, pw)
	}
	opts.Server, opts.Timeout, opts.Secrets = flags.server, flags.timeout, secrets
	opts.Operations = flags.operations
	opts.Credentials = func(r *http.Request) {
		for k, vs := range header {
			r.Header[k] = append([]string(nil), vs...)
		}
	}
	return opts, nil
}

// verifyCredentials reads the credential headers and the values never to
// print. A malformed header is refused without quoting it: it may hold a
// secret.
func verifyCredentials(flags verifyFlags) (http.Header, []string, error) {
	header := http.Header{}
	var secrets []string
	lines := flags.headers
	if env := os.Getenv(envVerifyHeaders); env != "" {
		lines = append(strings.Split(strings.TrimSpace(env), "\n"), lines...)
	}
	for i, line := range lines {
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
			return nil, nil, usageErrorf("header %d of --header and %s is not 'Name: value' (not shown: it may hold a secret)", i+1, envVerifyHeaders)
		}
		header.Add(name, value)
		secrets = append(secrets, value)
	}
	bearer := flags.bearer
	if bearer == "" {
		bearer = os.Getenv(envVerifyBearer)
	}
	if bearer != "" {
		header.Set("Authorization", "Bearer "+bearer)
		secrets = append(secrets, bearer)
	}
	return header, secrets, nil
}

// loadForVerify loads the spec: one that cannot be loaded or has errors is
// exit 2 with its located errors, as lint prints them.
func loadForVerify(tc toolchain, path string, ls loadSettings, stderr io.Writer) (*ir.API, error) {
	api, diags, err := tc.safeLoad(path, ls)
	var ds ir.Diagnostics
	if errors.As(err, &ds) {
		diags, err = append(diags, ds...), nil
	}
	switch {
	case err != nil:
		return nil, usageErrorf("%v", err)
	case diags.HasErrors():
		errs, _ := diags.Errors().(ir.Diagnostics)
		printDiagnostics(stderr, errs)
		return nil, usageErrorf("%s has errors; nothing verified", path)
	case api == nil:
		return nil, usageErrorf("loading %s produced no document", path)
	}
	return api, nil
}

// verifyInputs gives each operation its fixture, else the smallest body
// the mock builds from the spec's examples and schemas.
func verifyInputs(spec string, flags verifyFlags, stderr io.Writer) (func(*ir.Operation) verify.Input, func(), error) {
	fixtures := verify.Fixtures{}
	if flags.fixtures != "" {
		data, err := os.ReadFile(flags.fixtures)
		if err != nil {
			return nil, nil, usageErrorf("--fixtures: %v", err)
		}
		if fixtures, err = verify.ParseFixtures(data); err != nil {
			return nil, nil, usageErrorf("--fixtures %s: %v", flags.fixtures, err)
		}
	}
	// The mock loads with kin-openapi alone, without the parser's repairs:
	// a document only the parser reads gets its bodies from the fixtures.
	bodies, err := mock.New(spec, mock.Options{Overlays: flags.overlays})
	if err != nil {
		fmt.Fprintf(stderr, "idemgen: note: no example bodies (%v); bodies come from --fixtures only\n", err)
		bodies = nil
	}
	inputs := func(op *ir.Operation) verify.Input {
		var in verify.Input
		if bodies != nil {
			if mt, v, ok := bodies.RequestExample(op.Method, op.Path); ok {
				in.MediaType, in.Body = mt, v
			}
		}
		if f, ok := fixtures[op.ID]; ok {
			if f.Body != nil && in.MediaType == "" {
				in.MediaType = jsonBodyMedia(op)
			}
			if f.Body != nil {
				in.Body = f.Body
			}
			in.Body2, in.Params = f.Body2, f.Params
		}
		return in
	}
	return inputs, func() {
		if bodies != nil {
			bodies.Close()
		}
	}, nil
}

// jsonBodyMedia is the media type a fixture's body is sent as when no
// example could be built: the operation's first media type, JSON first.
func jsonBodyMedia(op *ir.Operation) string {
	if op.Body == nil || len(op.Body.Content) == 0 {
		return ""
	}
	for _, m := range op.Body.Content {
		if strings.Contains(m.Name, "json") {
			return m.Name
		}
	}
	return op.Body.Content[0].Name
}

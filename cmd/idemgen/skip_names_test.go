package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
)

// TestSkipUnsupportedBadNames: a document whose header parameter or apiKey
// scheme name is not an HTTP token (Notion's and RapidAPI's in the
// APIs.guru directory), or whose security requirement names a scheme it
// never declares (Kratos's "sessionToken"), is refused at the name, writing
// nothing; with --skip-unsupported it generates, and each skip is printed
// with its file, line, operation and JSON pointer.
func TestSkipUnsupportedBadNames(t *testing.T) {
	root := testutil.ModuleRoot(t)
	at := func(name string) string { return "skipped: " + filepath.Join(root, "testdata/specs/bad-gen", name) }
	for name, want := range map[string]struct {
		refusal string
		skipped []string
	}{
		"header-name-parameter.yaml": {"is not an HTTP token", []string{
			at("header-name-parameter.yaml") + `:19:17: retrieveAPage (/paths/~1pages~1{id}/get/parameters/1/name): header parameter name "" is not an HTTP token`,
		}},
		"header-name-scheme.yaml": {"is not an HTTP token", []string{
			at("header-name-scheme.yaml") + `:48:13: (/components/securitySchemes/rapidKey/name): apiKey header name "RapidAPI.com API Key" is not an HTTP token`,
			at("header-name-scheme.yaml") + `:44:13: compile (/components/securitySchemes/advKey/name): every security requirement names an unusable scheme (advKey, rapidKey)`,
		}},
		"unknown-security-scheme.yaml": {"[unknown-security-scheme]", []string{
			at("unknown-security-scheme.yaml") + `:32:25: updateSettings (/paths/~1settings/put/security/0/sessionToken): security scheme "sessionToken" is not defined in components.securitySchemes`,
			at("unknown-security-scheme.yaml") + `:12:17: putOrder (/security/0/bearerAuht): every security requirement names an unusable scheme (bearerAuht)`,
		}},
	} {
		t.Run(name, func(t *testing.T) {
			spec := filepath.Join(root, "testdata", "specs", "bad-gen", name)
			out := filepath.Join(t.TempDir(), "api")
			var stdout, stderr bytes.Buffer
			if code := run([]string{"generate", spec, "-p", "api", "-o", out}, &stdout, &stderr); code != exitProblem ||
				!strings.Contains(stderr.String(), want.refusal) {
				t.Fatalf("without --skip-unsupported: exit %d, want %d and a located refusal:\n%s", code, exitProblem, stderr.String())
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("a refused document wrote %s (%v)", out, err)
			}
			stderr.Reset()
			if code := run([]string{"generate", spec, "-p", "api", "-o", out, "--skip-unsupported"}, &stdout, &stderr); code != 0 {
				t.Fatalf("with --skip-unsupported: exit %d:\n%s", code, stderr.String())
			}
			for _, line := range want.skipped {
				if !strings.Contains(stderr.String(), line) {
					t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
				}
			}
			if _, err := os.Stat(filepath.Join(out, "client_gen.go")); err != nil {
				t.Error(err)
			}
		})
	}
}

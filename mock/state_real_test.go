package mock_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/internal/testutil"
	idemgenmock "github.com/idemgen/idemgen/mock"
)

// TestStatefulTwilio serves Twilio's 2010 API (../shared/specs) with
// --stateful: its /Things.json and /Things/{Sid}.json pairs are resources
// with the id member sid; what has no create, or no scalar id, stays
// stateless with that reason; a key is created from a form, fetched,
// updated by POST, listed and deleted.
func TestStatefulTwilio(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1.5 MB document: not under -short")
	}
	dir := testutil.SharedSpecsDir(t)
	if dir == "" {
		t.Skip("../shared/specs not found")
	}
	srv := startStateful(t, filepath.Join(dir, "twilio-api-v2010.yaml"), 0)
	const acct = "/2010-04-01/Accounts/{AccountSid}"
	checkTwilioMatch(t, srv, acct)

	base := srv.URL + "/2010-04-01/Accounts/AC" + strings.Repeat("0", 32)
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("AC:token"))
	form := func(method, path, body string) (*http.Response, []byte) {
		return do(t, method, base+path, body, "Authorization", auth, "Content-Type", "application/x-www-form-urlencoded")
	}
	resp, b := form(http.MethodPost, "/Keys.json", "FriendlyName=ci")
	key := object(t, b)
	sid, _ := key["sid"].(string)
	if resp.StatusCode != http.StatusCreated || key["friendly_name"] != "ci" || !regexp.MustCompile(`^SK[0-9a-fA-F]{32}$`).MatchString(sid) {
		t.Fatalf("create: %d %v", resp.StatusCode, key)
	}
	if resp, b := form(http.MethodPost, "/Keys/"+sid+".json", "FriendlyName=cd"); resp.StatusCode != http.StatusOK || object(t, b)["friendly_name"] != "cd" {
		t.Fatalf("update: %d %s", resp.StatusCode, b)
	}
	_, b = do(t, http.MethodGet, base+"/Keys/"+sid+".json", "", "Authorization", auth)
	if got := object(t, b); got["friendly_name"] != "cd" || got["sid"] != sid {
		t.Fatalf("fetch: %v", got)
	}
	_, b = do(t, http.MethodGet, base+"/Keys.json", "", "Authorization", auth)
	if keys, _ := object(t, b)["keys"].([]any); len(keys) != 1 || keys[0].(map[string]any)["sid"] != sid {
		t.Fatalf("list: %s", b)
	}
	if resp, _ := do(t, http.MethodDelete, base+"/Keys/"+sid+".json", "", "Authorization", auth); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if resp, _ := do(t, http.MethodGet, base+"/Keys/"+sid+".json", "", "Authorization", auth); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("fetch after delete: %d", resp.StatusCode)
	}
	twilioCallsFilteredByTo(t, form, func(path string) []byte {
		_, b := do(t, http.MethodGet, base+path, "", "Authorization", auth)
		return b
	})
}

// twilioCallsFilteredByTo creates two calls to different numbers; ListCall's
// To parameter (the call's "to" member, folded) selects one.
func twilioCallsFilteredByTo(t *testing.T, form func(method, path, body string) (*http.Response, []byte), get func(string) []byte) {
	t.Helper()
	for _, to := range []string{"%2B15550000001", "%2B15550000002"} {
		if resp, b := form(http.MethodPost, "/Calls.json", "To="+to+"&From=%2B15559999999&Url=https%3A%2F%2Fexample.com%2Ftwiml"); resp.StatusCode != http.StatusCreated {
			t.Fatalf("create call: %d %s", resp.StatusCode, b)
		}
	}
	calls, _ := object(t, get("/Calls.json?To=%2B15550000002"))["calls"].([]any)
	if len(calls) != 1 || calls[0].(map[string]any)["to"] != "+15550000002" {
		t.Fatalf("calls to +15550000002: %v", calls)
	}
	if all, _ := object(t, get("/Calls.json"))["calls"].([]any); len(all) != 2 {
		t.Fatalf("all calls: %v", all)
	}
}

// checkTwilioMatch pins what Twilio's document matches: 28 resources
// serving 118 of its 197 operations, and a few stateless ones with why.
func checkTwilioMatch(t *testing.T, srv *idemgenmock.TestServer, acct string) {
	t.Helper()
	stateful := 0
	var keys idemgenmock.Resource
	for _, r := range srv.Resources() {
		stateful += len(r.Operations)
		if r.Collection == acct+"/Keys.json" {
			keys = r
		}
	}
	if len(srv.Resources()) != 28 || stateful != 118 || len(srv.Stateless()) != 197-118 {
		t.Errorf("%d resources, %d stateful and %d stateless operations; want 28, 118, 79",
			len(srv.Resources()), stateful, len(srv.Stateless()))
	}
	wantKeys := idemgenmock.Resource{Collection: acct + "/Keys.json", Item: acct + "/Keys/{Sid}.json", ID: "sid",
		Operations: []string{"CreateNewKey", "DeleteKey", "FetchKey", "ListKey", "UpdateKey"}}
	if fmt.Sprint(keys) != fmt.Sprint(wantKeys) {
		t.Errorf("Keys: %v, want %v", keys, wantKeys)
	}
	why := map[string]string{}
	for _, op := range srv.Stateless() {
		why[op.Operation] = op.Why
	}
	for op, want := range map[string]string{
		"FetchConference":         "no POST " + acct + "/Conferences.json creates the items of " + acct + "/Conferences/{Sid}.json",
		"CreateValidationRequest": `the model POST ` + acct + `/OutgoingCallerIds.json creates has no scalar id member ("Sid" or "id")`,
		"FetchBalance":            "no item path " + acct + "/Balance/{id}.json beside it",
	} {
		if why[op] != want {
			t.Errorf("%s: stateless because %q, want %q", op, why[op], want)
		}
	}
	if slices.ContainsFunc(srv.Stateless(), func(op idemgenmock.StatelessOperation) bool { return op.Operation == "FetchKey" }) {
		t.Error("FetchKey is stateless")
	}
}

// TestStatefulRealDocuments serves each real document of ../shared/specs
// with --stateful and logs how many operations it binds to resources (the
// table of docs/mock.md, "Stateful mode"; run with -v).
func TestStatefulRealDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("the real documents: not under -short")
	}
	dir := testutil.SharedSpecsDir(t)
	if dir == "" {
		t.Skip("../shared/specs not found")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.*"))
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".json" && ext != ".yaml" {
			continue
		}
		s, err := idemgenmock.New(f, idemgenmock.Options{Stateful: true})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		stateful := 0
		for _, r := range s.Resources() {
			stateful += len(r.Operations)
		}
		if stateful+len(s.Stateless()) != s.Operations() {
			t.Errorf("%s: %d stateful and %d stateless of %d operations", f, stateful, len(s.Stateless()), s.Operations())
		}
		t.Logf("| %s | %d | %d | %d | %d |", filepath.Base(f), s.Operations(), len(s.Resources()), stateful, len(s.Stateless()))
		s.Close()
	}
}

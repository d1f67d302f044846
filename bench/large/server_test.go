package large

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
)

// items is the length of every list answer.
const items = 100

// answers are the two list bodies and the checksums a correct decode gives.
type answers struct {
	repos, charges       []byte
	reposSum, chargesSum int64
}

// loadAnswers builds the bodies from the one-object samples in testdata:
// repository i has id i+1 and name repo-i; charge i has id ch_i and amount
// 1000+i.
func loadAnswers(tb testing.TB) answers {
	tb.Helper()
	var a answers
	a.repos, a.reposSum = repeat(tb, "testdata/github-repo.json", func(i int, m map[string]any) int64 {
		m["id"] = i + 1
		m["name"] = fmt.Sprintf("repo-%d", i)
		m["full_name"] = fmt.Sprintf("octocat/repo-%d", i)
		return int64(i + 1)
	})
	list, sum := repeat(tb, "testdata/stripe-charge.json", func(i int, m map[string]any) int64 {
		m["id"] = fmt.Sprintf("ch_%024d", i)
		m["amount"] = 1000 + i
		return int64(1000 + i)
	})
	a.charges = fmt.Appendf(nil, `{"object":"list","data":%s,"has_more":false,"url":"/v1/charges"}`, list)
	a.chargesSum = sum
	return a
}

// repeat makes a JSON array of items copies of the object in file, each
// changed by vary, and sums what vary returns.
func repeat(tb testing.TB, file string, vary func(int, map[string]any) int64) ([]byte, int64) {
	src, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]map[string]any, items)
	var sum int64
	for i := range out {
		if err := json.Unmarshal(src, &out[i]); err != nil {
			tb.Fatal(err)
		}
		sum += vary(i, out[i])
	}
	b, err := json.Marshal(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b, sum
}

// newServer answers GET /orgs/{org}/repos and GET /v1/charges with the
// lists, anything else with 404.
func newServer(tb testing.TB, a answers) *httptest.Server {
	mux := http.NewServeMux()
	serve := func(body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
		}
	}
	mux.HandleFunc("GET /orgs/{org}/repos", serve(a.repos))
	mux.HandleFunc("GET /v1/charges", serve(a.charges))
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

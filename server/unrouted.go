package idemsrv

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Problem types of requests no operation matches.
const (
	ProblemNotFound         = "https://idemgen.dev/problems/not-found"
	ProblemMethodNotAllowed = "https://idemgen.dev/problems/method-not-allowed"
)

// unrouted answers a request no route takes: 404 when no template matches
// its path; otherwise Allow lists the methods the matching templates take
// (HEAD beside GET, and OPTIONS), an OPTIONS request is answered 204 with
// it and any other method 405.
func (rt *router) unrouted(w http.ResponseWriter, r *http.Request, rest string, ok bool) {
	var allow []string
	if ok {
		allow = rt.root.methods(rest, r.URL.RawQuery, nil)
	}
	if len(allow) == 0 {
		WriteProblem(w, http.StatusNotFound, ProblemNotFound, "no operation of this API has this path")
		return
	}
	if slices.Contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead)
	}
	allow = append(allow, http.MethodOptions)
	slices.Sort(allow)
	list := strings.Join(slices.Compact(allow), ", ")
	w.Header().Set("Allow", list)
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	WriteProblem(w, http.StatusMethodNotAllowed, ProblemMethodNotAllowed,
		fmt.Sprintf("this path takes %s, not %s", list, r.Method))
}

package idemsrv

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/runtime/problem"
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
		problem.Write(w, http.StatusNotFound, problem.NotFound, "no operation of this API has this path")
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
	problem.Write(w, http.StatusMethodNotAllowed, problem.MethodNotAllowed,
		fmt.Sprintf("this path takes %s, not %s", list, r.Method))
}

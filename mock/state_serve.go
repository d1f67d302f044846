package mock

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// serveState answers an operation bound to a resource from the store:
// the generated answer gives the status, the headers and the members the
// resource lacks; the store gives the resource.
func (s *Server) serveState(w http.ResponseWriter, r *http.Request, rt *route, pref prefer, ff faultSet, x *exchange) {
	b := s.build(r, rt, answerFor{prefer: pref})
	col, id := stateAddress(rt, x.params)
	var p *Problem
	switch rt.state.kind {
	case stateCreate:
		p = s.createResource(&b, r, rt, col)
	case stateList:
		p = s.listResources(&b, r, rt, col)
	case stateDelete:
		// A DELETE of what is gone is 404 only where the document says
		// so; else its success answer (a retried DELETE stays a success).
		if !s.state.remove(col, id) && declaresStatus(rt.op, http.StatusNotFound) {
			p = notFound(rt, col, id)
		} else {
			deletedID(&b, rt.state.res, id)
		}
	default:
		p = s.readOrUpdate(&b, r, rt, col, id)
	}
	if p != nil {
		x.validation = "stateful: " + p.Title
		writeProblem(w, p.Status, p.Type, p.Title, p.Detail, p.Errors)
		return
	}
	s.send(w, r, b, ff)
}

// createResource stores the generated model with the request's members
// merged in, under the id the request chose or a fresh one.
func (s *Server) createResource(b *built, r *http.Request, rt *route, col string) *Problem {
	d := rt.state.res
	model, req := decodeObject(b.body), requestMembers(r, rt)
	s.mergeMembers(model, req, d.model, d.idMember, false)
	chosen := ""
	if v, ok := req[d.idMember]; ok && s.validMember(d.idSchema, v) {
		chosen = scalarString(v)
	}
	id, err := s.state.create(col, chosen, s.freshID(d.idSchema), func(id string) map[string]any {
		model[d.idMember] = idValue(d.idSchema, id)
		return model
	})
	switch {
	case errors.Is(err, ErrStateFull):
		return &Problem{Status: http.StatusInsufficientStorage, Type: "state-full", Title: "The stateful mock is full",
			Detail: fmt.Sprintf("it holds %d resources (--state-limit); POST %s empties it", s.state.limit, ResetPath)}
	case errors.Is(err, ErrResourceExists):
		return &Problem{Status: http.StatusConflict, Type: "resource-exists", Title: "The resource exists",
			Detail: fmt.Sprintf("%s already has %s %q", col, d.idMember, chosen)}
	case err != nil:
		return &Problem{Status: http.StatusInternalServerError, Type: "no-fresh-id", Title: "No fresh id",
			Detail: fmt.Sprintf("no fresh value of %s fits its schema", d.idMember)}
	}
	if b.header.Get("Location") != "" {
		b.header.Set("Location", "http://"+hostOf(r)+strings.TrimSuffix(r.URL.Path, "/")+"/"+url.PathEscape(id))
	}
	b.setJSON(model)
	return nil
}

// readOrUpdate answers GET, PATCH, PUT and POST on an item.
func (s *Server) readOrUpdate(b *built, r *http.Request, rt *route, col, id string) *Problem {
	d := rt.state.res
	var v map[string]any
	ok := false
	switch rt.state.kind {
	case stateGet:
		v, ok = s.state.get(col, id)
	case stateMerge:
		req := requestMembers(r, rt)
		v, ok = s.state.update(col, id, func(old map[string]any) map[string]any {
			s.mergeMembers(old, req, d.model, d.idMember, true)
			return old
		})
	case stateReplace:
		req := requestMembers(r, rt)
		v, ok = s.state.update(col, id, func(old map[string]any) map[string]any {
			s.replaceMembers(old, req, rt.state.declared, d)
			return old
		})
	}
	if !ok {
		return notFound(rt, col, id)
	}
	if b.body != nil || b.media != "" {
		b.setJSON(v)
	}
	return nil
}

// replaceMembers is PUT: each member the request schema declares takes the
// value sent, or goes when none was sent (unless the model requires it);
// the members it does not declare (the id, server-owned ones) stay.
func (s *Server) replaceMembers(old, req map[string]any, declared map[string]bool, d *resourceDef) {
	for k := range declared {
		m := modelName(d.model, k)
		if _, sent := req[k]; !sent && m != "" && m != d.idMember && !requiredMember(d.model, m) {
			delete(old, m)
		}
	}
	s.mergeMembers(old, req, d.model, d.idMember, false)
}

// listResources answers a list with the page the request asks for.
func (s *Server) listResources(b *built, r *http.Request, rt *route, col string) *Problem {
	pg, p := pageOf(r, rt, filtered(r, rt.state.filters, s.state.list(col)))
	if p != nil {
		return p
	}
	var body any
	if len(b.body) > 0 {
		json.Unmarshal(b.body, &body)
	}
	b.setJSON(pageBody(body, rt.state, pg, b.header))
	return nil
}

func notFound(rt *route, col, id string) *Problem {
	return &Problem{Status: http.StatusNotFound, Type: "not-found", Title: "No such resource",
		Detail: fmt.Sprintf("%s holds no %s %q", col, rt.state.res.idMember, id)}
}

// setJSON makes v the answer's body, as JSON.
func (b *built) setJSON(v any) {
	body, err := json.Marshal(v)
	if err != nil {
		return
	}
	b.body = body
	if !isJSON(mediaBase(b.media)) {
		b.media = "application/json"
	}
}

// decodeObject is a JSON object's members; an empty object for anything
// else.
func decodeObject(body []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil || m == nil {
		m = map[string]any{}
	}
	return m
}

// stateAddress is the concrete collection path of a request and, on an
// item path, the id: the parameters' values put into the collection's
// template by position, so that a collection path and its item path may
// name their parameters differently.
func stateAddress(rt *route, params map[string]string) (col, id string) {
	vals := make([]string, len(rt.names))
	for i, n := range rt.names {
		vals[i] = params[n]
	}
	if rt.path == rt.state.res.item && len(vals) > 0 {
		id, vals = vals[len(vals)-1], vals[:len(vals)-1]
	}
	i := 0
	col = paramRE.ReplaceAllStringFunc(rt.state.res.collection, func(string) string {
		v := ""
		if i < len(vals) {
			v = url.PathEscape(vals[i])
		}
		i++
		return v
	})
	return col, id
}

// requiredMember reports whether the model, or one of its allOf members,
// requires the member name.
func requiredMember(model *openapi3.SchemaRef, name string) bool {
	if model == nil || model.Value == nil {
		return false
	}
	if slices.Contains(model.Value.Required, name) {
		return true
	}
	return slices.ContainsFunc(model.Value.AllOf, func(m *openapi3.SchemaRef) bool { return requiredMember(m, name) })
}

// ResetState forgets every resource of a stateful mock (not the ledger:
// a key used before keeps replaying its stored answer; not the counts).
func (s *Server) ResetState() {
	if s.state != nil {
		s.state.reset()
	}
}

// serveReset is POST /__idemgen/reset.
func (s *Server) serveReset(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", "POST")
		writeProblem(w, http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed", "POST "+ResetPath, nil)
	case s.state == nil:
		writeProblem(w, http.StatusConflict, "not-stateful", "The mock is not stateful",
			"start it with --stateful (Options.Stateful) to keep resources", nil)
	default:
		s.state.reset()
		w.WriteHeader(http.StatusNoContent)
	}
}

// declaresStatus reports whether op declares a response for status.
func declaresStatus(op *openapi3.Operation, status int) bool {
	return op.Responses != nil && op.Responses.Value(strconv.Itoa(status)) != nil
}

// deletedID names the deleted resource in a DELETE answer that carries its
// id member (Stripe's {"id": ..., "deleted": true}).
func deletedID(b *built, d *resourceDef, id string) {
	m := decodeObject(b.body)
	if _, ok := m[d.idMember]; ok {
		m[d.idMember] = idValue(d.idSchema, id)
		b.setJSON(m)
	}
}

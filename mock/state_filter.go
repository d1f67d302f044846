package mock

import (
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// listFilter is a query parameter of a list that selects the stored
// resources by one of their members (GitHub's state=open, Stripe's
// customer=cus_1, orders.yaml's status=paid).
type listFilter struct {
	param, member string
	// split: the parameter is a list sent comma-separated (style form,
	// explode false), each value one choice.
	split bool
}

// listFilters are the query parameters of list that name a scalar member
// of the resource's model (by name, or folded as request members are),
// other than its paging parameters. A parameter that names no member, or
// an object, array or free-form one, is not a filter.
func listFilters(list *route, op *stateOp) []listFilter {
	paging := []string{linkOffsetParam}
	if p := op.page; p != nil {
		paging = append(paging, p.Param, p.Limit, "page")
	}
	var out []listFilter
	for _, p := range params(list.item, list.op) {
		if p.In != openapi3.ParameterInQuery || slices.Contains(paging, p.Name) || p.Schema == nil || p.Schema.Value == nil {
			continue
		}
		member := modelName(op.res.model, p.Name)
		if member == "" || !isScalar(memberOf(op.res.model, member, 0)) {
			continue
		}
		ps := p.Schema.Value
		split := ps.Type.Is(openapi3.TypeArray) && p.Explode != nil && !*p.Explode
		if !isScalar(p.Schema) && !(ps.Type.Is(openapi3.TypeArray) && isScalar(ps.Items)) {
			continue
		}
		out = append(out, listFilter{param: p.Name, member: member, split: split})
	}
	return out
}

// isScalar reports whether ref is a string, number, integer or boolean.
func isScalar(ref *openapi3.SchemaRef) bool {
	if ref == nil || ref.Value == nil || ref.Value.Type == nil {
		return false
	}
	return ref.Value.Type.Includes(openapi3.TypeString) || ref.Value.Type.Includes(openapi3.TypeNumber) ||
		ref.Value.Type.Includes(openapi3.TypeInteger) || ref.Value.Type.Includes(openapi3.TypeBoolean)
}

// filtered keeps the resources whose member equals one of the values each
// filter the request sends (values compare as the JSON scalar's text, as
// the mock writes a parameter: "2" matches 2, "true" matches true).
func filtered(r *http.Request, filters []listFilter, all []stored) []stored {
	q := r.URL.Query()
	for _, f := range filters {
		values := q[f.param]
		if len(values) == 0 {
			continue
		}
		if f.split {
			values = strings.Split(strings.Join(values, ","), ",")
		}
		// A set: a query of many values costs one lookup per resource.
		chosen := make(map[string]bool, len(values))
		for _, v := range values {
			chosen[v] = true
		}
		all = slices.DeleteFunc(slices.Clone(all), func(s stored) bool {
			v, ok := s.value[f.member]
			return !ok || v == nil || !chosen[scalarString(v)]
		})
	}
	return all
}

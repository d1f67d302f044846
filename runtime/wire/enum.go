package wire

// Known reports whether v is one of values: the body of a generated enum's
// IsKnown. A switch per enum costs the compiler a search tree and a
// function body per type, and a large client has hundreds of enums; calls
// to one function cost a list of constants each.
func Known[T comparable](v T, values ...T) bool {
	for _, k := range values {
		if v == k {
			return true
		}
	}
	return false
}

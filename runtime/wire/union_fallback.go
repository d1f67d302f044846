package wire

import "errors"

// decodeFirst decodes a container value (an object or an array) into the
// variants in rank order until one accepts it, and returns the index of
// that variant, or the first variant's error when none does. The best
// variant is always decoded; a failure then goes on to the others that the
// value may be valid for (retryable), each once. Linearity: a decode may
// reach a union below this one (reaches) at most once per level, so a
// failure never makes the levels below decode twice, and every other
// decode at this level reads the value without running a union's decoder.
// A value too deep for one variant is too deep for all: ErrTooDeep ends the
// search.
func decodeFirst(data []byte, v *shallow, vs []Variant, order []int, fits []fit) (int, error) {
	var first error
	deep := false
	for n, i := range order {
		s := typeInfoOf(targetType(vs[i].Target))
		if n > 0 && !s.retryable(v, fits[i]) {
			continue
		}
		reaches := s.reaches(v)
		if reaches && deep {
			continue
		}
		deep = deep || reaches
		err := decodeOnce(data, vs[i].Target)
		if err == nil {
			return i, nil
		}
		if first == nil {
			first = err
		}
		if errors.Is(err, ErrTooDeep) {
			break
		}
	}
	return -1, first
}

// retryable reports whether a variant other than the best is worth
// decoding after the best failed: the value has the members it requires
// and its declared members present are of kinds their fields take
// (fitLenient or better), or the variant's members are unknown to one scan
// (a union, a map, a type that decodes itself) and its JSON kind fits. A
// variant whose required member is missing would "accept" the value only
// because Go's decoders do not check required members.
func (s *typeInfo) retryable(v *shallow, f fit) bool {
	switch {
	case f >= fitLenient:
		return true
	case f == fitNone:
		return false
	}
	return v.Kind == kindObject && s.fields == nil && !s.extra
}

// reaches reports whether decoding v into the type s describes may run the
// decoder of a union nested in it: the type nests and, for a struct known
// member by member, a member of v that is not null names a field whose type
// nests.
func (s *typeInfo) reaches(v *shallow) bool {
	if !s.nests {
		return false
	}
	if s.fields == nil || s.extra || v.Kind != kindObject {
		return true
	}
	for _, m := range v.Members {
		if f := s.lookup(m.Name); f != nil && f.nests && m.Kind != kindNull {
			return true
		}
	}
	return false
}

package wire

// Param describes how one parameter is serialised, as the spec wrote it.
// Generated code passes a literal per parameter, for example
//
//	b.Query(wire.Param{Name: "status", Style: wire.StyleForm, Explode: true}, params.Status)
type Param struct {
	// Name is the wire name.
	Name string
	// Style is the resolved style; it must be one the location allows (see
	// Style). There is no default: the parser decided it.
	Style Style
	// Explode is the resolved explode flag.
	Explode bool
	// AllowReserved sends RFC 3986 reserved characters of query values
	// unescaped.
	AllowReserved bool
	// JSON marks a parameter described with `content: application/json`: its
	// value is sent as JSON text.
	JSON bool
}

// Style is an OpenAPI parameter style. Generated code passes the style the
// parser resolved, a location's default included, so this package never
// guesses one: the zero Style is none, and a parameter whose style its
// location does not allow is an error matching ErrInvalidParam, before
// anything is sent.
//
// Adding a style: a constant here, its name in String, and its case in the
// switch of each location that allows it (stylePath, queryPairs, or
// Builder.Header and Builder.Cookie); ir.ParamStyle has the same constant
// by name, and the generator emits this one for it.
type Style uint8

// The styles of OpenAPI 3, by location: path takes simple, label and matrix;
// query takes form, spaceDelimited, pipeDelimited and deepObject; header
// takes simple; cookie takes form. Properties of a form body (Encoding) take
// the query styles.
const (
	StyleSimple Style = iota + 1
	StyleForm
	StyleLabel
	StyleMatrix
	StyleDeepObject
	StyleSpaceDelimited
	StylePipeDelimited
)

// String returns the style's OpenAPI name, or "" for the zero Style and
// unknown values.
func (s Style) String() string {
	switch s {
	case StyleSimple:
		return "simple"
	case StyleForm:
		return "form"
	case StyleLabel:
		return "label"
	case StyleMatrix:
		return "matrix"
	case StyleDeepObject:
		return "deepObject"
	case StyleSpaceDelimited:
		return "spaceDelimited"
	case StylePipeDelimited:
		return "pipeDelimited"
	}
	return ""
}

// styleError is the error of a parameter whose style its location does not
// allow.
func styleError(p Param, in string) error {
	return paramError(p.Name, "style %q (%d) cannot serialise a %s parameter", p.Style, uint8(p.Style), in)
}

package ir

// Kind is the shape of a schema.
type Kind int

const (
	// KindAny is a value with no usable type information (no type, a dangling
	// reference the parser repaired, or `{}`); it stays raw JSON.
	KindAny Kind = iota
	KindBool
	KindInteger
	KindNumber
	KindString
	// KindArray has Items.
	KindArray
	// KindMap is an object with additionalProperties and no properties; the
	// value type is AdditionalProperties.
	KindMap
	// KindObject has Properties, and AdditionalProperties when the document
	// allows extra members with a usable type.
	KindObject
	// KindEnum has EnumBase and Enum.
	KindEnum
	// KindUnion is oneOf or anyOf: Union, Variants and maybe Discriminator.
	KindUnion
	// KindRef is a use of a named schema: Ref points at the declaration in
	// API.Schemas. Uses never embed a named declaration directly, so recursion
	// is always broken by a KindRef.
	KindRef
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindBool:
		return "bool"
	case KindInteger:
		return "integer"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindMap:
		return "map"
	case KindObject:
		return "object"
	case KindEnum:
		return "enum"
	case KindUnion:
		return "union"
	case KindRef:
		return "ref"
	default:
		return "any"
	}
}

// UnionKind tells oneOf from anyOf.
type UnionKind int

const (
	OneOf UnionKind = iota
	AnyOf
)

// Formats the generator maps to specific Go types. Other format strings are
// kept in Schema.Format for documentation only.
const (
	FormatDateTime = "date-time"
	FormatDate     = "date"
	FormatUUID     = "uuid"
	FormatInt32    = "int32"
	FormatInt64    = "int64"
	FormatFloat    = "float"
	FormatDouble   = "double"
	FormatByte     = "byte"
	FormatBinary   = "binary"
)

// Schema is either a named declaration (GoName set, listed in API.Schemas) or
// an anonymous use (GoName empty) found in a property, parameter, body,
// response, item or variant.
//
// allOf never reaches the IR: the parser flattens it into an object and
// reports conflicting members. 3.0 `nullable: true`, 3.1 `type: [T, "null"]`
// and a oneOf/anyOf with a `null` member all become Nullable.
type Schema struct {
	// Name is the component name for a declaration from
	// components.schemas, or the name the parser made for an inline type.
	Name string
	// GoName is the exported Go type name of a declaration; empty for uses.
	GoName string
	Kind   Kind
	// Format is the `format` keyword as written ("date-time", "int32", ...).
	Format      string
	Nullable    bool
	ReadOnly    bool
	WriteOnly   bool
	Deprecated  bool
	Title       string
	Description string

	// Ref is the named declaration a KindRef use points at.
	Ref *Schema
	// Items is the element type of a KindArray.
	Items *Schema
	// AdditionalProperties is the value type of a KindMap, or of the extra
	// members of a KindObject; nil when extra members are not modelled.
	AdditionalProperties *Schema
	// Properties of a KindObject, sorted by Name.
	Properties []*Property

	// EnumBase is KindString, KindInteger or KindNumber for a KindEnum.
	EnumBase Kind
	// Enum values in document order (the order is part of the contract the
	// author wrote, and it is deterministic).
	Enum []EnumValue

	// Union, Variants and Discriminator describe a KindUnion. Variants are
	// uses in document order.
	Union         UnionKind
	Variants      []*Schema
	Discriminator *Discriminator

	// Inline is set on a declaration the parser made and named for schemas
	// written inline (and on the aliases it made for their other uses);
	// a component schema's declaration keeps the document's name and leaves
	// it false.
	Inline bool

	Source Source
}

// Property is one member of an object.
type Property struct {
	// Name is the JSON member name.
	Name string
	// GoName is the exported field name, unique within the object.
	GoName      string
	Type        *Schema
	Required    bool
	Description string
	Deprecated  bool
	// ReadOnly is set for a member the server writes and a request must not
	// carry (readOnly on the member or on its type); a required one is left
	// out of requests when zero instead of going out as "id":0.
	ReadOnly bool
}

// EnumValue is one allowed value.
type EnumValue struct {
	// Value is the literal: the string itself for string enums, the decimal
	// text for numbers.
	Value string
	// GoName is the suffix of the Go constant ("pending" -> "Pending"),
	// unique within the enum.
	GoName string
}

// Discriminator selects a union variant by a property's value.
type Discriminator struct {
	// Property is the JSON member holding the tag.
	Property string
	// Mapping is sorted by Value; each entry points at a named declaration.
	// Implicit mappings (the schema name as the tag) are filled in.
	Mapping []DiscriminatorMapping
}

// DiscriminatorMapping maps one tag value to one variant.
type DiscriminatorMapping struct {
	Value  string
	Schema *Schema
}

// Deref follows a KindRef to the declaration; other schemas return
// themselves. A nil schema returns nil.
func (s *Schema) Deref() *Schema {
	for s != nil && s.Kind == KindRef {
		s = s.Ref
	}
	return s
}

// IsNullable reports whether a use or the declaration it names is
// nullable.
func (s *Schema) IsNullable() bool {
	for ; s != nil; s = s.Ref {
		if s.Nullable {
			return true
		}
		if s.Kind != KindRef {
			break
		}
	}
	return false
}

// HasNilZero reports whether the Go type generated for s already has a nil
// value (slices, maps, raw JSON, byte strings, an anonymous union), so that
// "absent" needs no pointer. The generator and idemgen diff decide pointers
// from it.
func (s *Schema) HasNilZero() bool {
	d := s.Deref()
	if d == nil {
		return true
	}
	switch d.Kind {
	case KindArray, KindMap, KindAny:
		return true
	case KindObject:
		return len(d.Properties) == 0
	case KindString:
		return d.Format == FormatByte || d.Format == FormatBinary
	case KindUnion:
		return d.GoName == "" // an anonymous union is raw JSON
	}
	return false
}

package wire

import "github.com/idemgen/idemgen/runtime/internal/jsoncodec"

// The union decoders read a value's top level with the codec's scanner
// (jsoncodec.Scan): these are its names here.
type (
	kinds   = jsoncodec.Kinds
	shallow = jsoncodec.Shallow
)

const (
	kindNull   = jsoncodec.KindNull
	kindBool   = jsoncodec.KindBool
	kindString = jsoncodec.KindString
	kindInt    = jsoncodec.KindInt
	kindFloat  = jsoncodec.KindFloat
	kindArray  = jsoncodec.KindArray
	kindObject = jsoncodec.KindObject
	kindAll    = jsoncodec.KindAll
)

var (
	scan        = jsoncodec.Scan
	scanMembers = jsoncodec.ScanMembers
	memberName  = jsoncodec.MemberName
	kindOf      = jsoncodec.KindOf
)

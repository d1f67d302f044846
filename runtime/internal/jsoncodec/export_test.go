package jsoncodec

// FastUnmarshal is the library's decoder alone, for the differential test.
var FastUnmarshal = fastUnmarshal

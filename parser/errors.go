package parser

import "errors"

// errEmptyDocument is returned for a file that holds no YAML document.
var errEmptyDocument = errors.New("empty document")

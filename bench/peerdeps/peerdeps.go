// Package peerdeps holds no code: its imports pin, in the bench module's
// go.mod and go.sum, every runtime package that oapi-codegen's and ogen's
// generated clients import, and the retry library the amplification table
// compares against. Generated packages built by gentable under _work then
// compile without touching go.mod, and `go mod tidy` keeps these modules.
package peerdeps

import (
	_ "github.com/go-faster/errors"
	_ "github.com/go-faster/jx"
	_ "github.com/hashicorp/go-retryablehttp"
	_ "github.com/oapi-codegen/runtime"
	_ "github.com/oapi-codegen/runtime/types"
	_ "github.com/ogen-go/ogen/conv"
	_ "github.com/ogen-go/ogen/http"
	_ "github.com/ogen-go/ogen/json"
	_ "github.com/ogen-go/ogen/ogenerrors"
	_ "github.com/ogen-go/ogen/ogenregex"
	_ "github.com/ogen-go/ogen/uri"
	_ "github.com/ogen-go/ogen/validate"
)

//go:build sdkjudge

package sdkjudge

// The driver in testdata/driver imports these; it runs in a temporary module
// whose go.mod and go.sum are this module's, so they are listed here for
// go mod tidy (the tag is never set: nothing here is built).
import (
	_ "github.com/idemgen/idemgen/ledger"
	_ "github.com/idemgen/idemgen/ledger/sqlitestore"
	_ "github.com/idemgen/idemgen/runtime"
	_ "github.com/idemgen/idemgen/runtime/wire"
	_ "github.com/idemgen/idemgen/server"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/openai/openai-go/v3/option"
	_ "github.com/openai/openai-go/v3/shared"
	_ "github.com/stripe/stripe-go/v82"
)

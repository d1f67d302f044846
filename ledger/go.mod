module github.com/idemgen/idemgen/ledger

go 1.26.0

require (
	github.com/google/uuid v1.6.0
	github.com/idemgen/idemgen/runtime v0.1.0
)

require github.com/goccy/go-json v0.12.0 // indirect

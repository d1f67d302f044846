module github.com/idemgen/idemgen/runtime

go 1.26.0

require (
	github.com/goccy/go-json v0.12.0
	github.com/google/uuid v1.6.0
	golang.org/x/oauth2 v0.38.0
)

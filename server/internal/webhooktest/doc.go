// Package webhooktest holds the webhook receiver's end-to-end tests on a
// SQLite ledger. It is a module of its own, never published, so that the
// server module's go.mod does not require a store driver: a server's users
// download only the driver they pick (docs/server.md, "Modules").
package webhooktest

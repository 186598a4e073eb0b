// Package tests holds avaindex's end-to-end tests: avaindex run in-process
// against a real avalanchego local network (internal/testing/testnet starts
// it once per test process) on SQLite and PostgreSQL, and compared with the
// node as the source of truth, with the reference OpenAPI documents and with
// real clients. Package tests beside the code test that code alone.
package tests

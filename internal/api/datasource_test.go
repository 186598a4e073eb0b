package api

import "github.com/avaindex/avaindex/internal/store"

// The store serves the Data API's reads.
var _ DataSource = store.Store(nil)

// The store serves the EVM endpoints' reads.
var _ EVMSource = store.Store(nil)

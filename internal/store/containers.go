package store

// ContainerStore keeps the per-chain container index mirrored from the
// node's /ext/index endpoints.
type ContainerStore interface{}

package api

import (
	"net/http"
)

// The "EVM Contracts" operation getContractMetadata: what the indexed
// chain tells of a contract (its standard, name, symbol, decimals and
// deployment) with the curated metadata of the contract-metadata files.

// getContractMetadata serves getContractMetadata. An address that is no
// contract deployed on the indexed chain and that no metadata file lists
// is not found.
func (a *API) getContractMetadata(w http.ResponseWriter, r *http.Request) error {
	chain, err := a.evmChain(r)
	if err != nil {
		return err
	}
	addr, err := EVMAddress(r, "address")
	if err != nil {
		return err
	}
	v, err := a.contracts(chain.ChainID).get(r.Context(), addr)
	if err != nil {
		return err
	}
	if v.stored == nil && !v.listed {
		return notAContract(addr, chain.ChainID)
	}
	WriteJSON(w, http.StatusOK, contractMetadata(v))
	return nil
}

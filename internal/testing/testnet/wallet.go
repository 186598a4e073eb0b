package testnet

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// pollFrequency is how often the wallets poll for a tx's acceptance.
const pollFrequency = 25 * time.Millisecond

// WithWallet runs fn with a primary-network wallet over the local key,
// freshly synced from the node and configured to issue with ctx and to wait
// for every tx to be accepted. Calls are serialized with all other helpers
// that spend the key's funds. cfg names the subnets (and L1 validation ids)
// whose owners the P-chain wallet must know to sign for them.
func (n *Network) WithWallet(ctx context.Context, cfg primary.WalletConfig, fn func(w *primary.Wallet) error) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	w, err := n.makeWallet(ctx, cfg)
	if err != nil {
		return err
	}
	return fn(w)
}

func (n *Network) makeWallet(ctx context.Context, cfg primary.WalletConfig) (*primary.Wallet, error) {
	return makeWallet(ctx, n.URL, n.Key, cfg)
}

func makeWallet(ctx context.Context, uri string, key *secp256k1.PrivateKey, cfg primary.WalletConfig) (*primary.Wallet, error) {
	kc := secp256k1fx.NewKeychain(key)
	w, err := primary.MakeWallet(ctx, uri, kc, kc, cfg)
	if err != nil {
		return nil, fmt.Errorf("syncing wallet: %w", err)
	}
	return primary.NewWalletWithOptions(w,
		common.WithContext(ctx),
		common.WithPollFrequency(pollFrequency),
	), nil
}

// Owner returns an output owner of the local key.
func (n *Network) Owner() *secp256k1fx.OutputOwners {
	return &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{n.Addr}}
}

// NewKey returns a fresh random secp256k1 key, for use as a recipient.
func NewKey() (*secp256k1.PrivateKey, error) {
	return secp256k1.NewPrivateKey()
}

// RandomNodeID returns a random node id that no running node has.
func RandomNodeID() (ids.NodeID, error) {
	var id ids.NodeID
	_, err := rand.Read(id[:])
	return id, err
}

// Call makes one JSON-RPC 2.0 call to the node's endpoint at path (e.g.
// "/ext/bc/P", "/ext/bc/X", "/ext/info") and decodes the result into result.
func (n *Network) Call(ctx context.Context, path, method string, params, result any) error {
	if params == nil {
		params = struct{}{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.URL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, tail(string(raw), 500))
	}
	if out.Error != nil {
		return fmt.Errorf("%s: %s (code %d)", method, out.Error.Message, out.Error.Code)
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(out.Result, result); err != nil {
		return fmt.Errorf("%s: decoding result: %w", method, err)
	}
	return nil
}

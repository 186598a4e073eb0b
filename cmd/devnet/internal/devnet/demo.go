package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// demoNetwork is the {network} name the printed URLs use: the alias devnet
// gives the local network, which strict clients accept.
const demoNetwork = "testnet"

// demoResult is what the demo issued, for the URLs that show it.
type demoResult struct {
	*testnet.Issued
	// Holder owns the demo's time-locked output and, with Cosigner, its
	// multisig outputs (bech32 without a chain prefix): a UTXO list shows a
	// multisig output to addresses that meet its threshold.
	Holder, Cosigner string
	MultisigPTx      ids.ID
	MultisigXTx      ids.ID
	LockedUntil      time.Time
	ValidatorNode    ids.NodeID
	// EVMChainID is the C-chain's EVM chain id; EVM what the test
	// contracts' scenario did on it (ERC-20, ERC-721 and ERC-1155 tokens
	// minted and transferred, children deployed by a factory).
	EVMChainID uint64
	EVM        *contracts.Scenario
}

// issueDemo issues a realistic set of transactions on the local network at
// nodeURL with the funded key: everything testnet.IssueAll covers (P and X
// transfers, a validator and a delegator rewarded when their short stake
// ends, a subnet converted to an L1, an X-chain asset, moves between P, X
// and C, an EVM transfer and contract), then outputs that need more than
// one signature or wait for a time: a 2-of-3 multisig and a time-locked
// output on the P-chain, a 2-of-2 multisig of AVAX and of the new asset on
// the X-chain; and on the C-chain, the test contracts' scenario: ERC-20,
// ERC-721 and ERC-1155 contracts deployed, minted and transferred (batches
// too), and a factory's children by CREATE and CREATE2. The testing tree's issuers are used as they are: they are
// plain functions over avalanchego's wallet, nothing test-only.
func issueDemo(ctx context.Context, nodeURL string, progress io.Writer) (*demoResult, error) {
	n, err := testnet.Attach(ctx, nodeURL)
	if err != nil {
		return nil, fmt.Errorf("attaching to the node: %w", err)
	}
	fmt.Fprintf(progress, "devnet: issuing the demo transactions (about %s: the validator's stake must end to be rewarded)...\n",
		testnet.StakingDuration+15*time.Second)
	issued, err := n.IssueAll(ctx)
	if err != nil {
		return nil, err
	}
	res := &demoResult{Issued: issued, ValidatorNode: issued.Validator.NodeID}

	var keys []ids.ShortID
	for range 3 {
		k, err := testnet.NewKey()
		if err != nil {
			return nil, err
		}
		keys = append(keys, k.Address())
	}
	res.Holder, res.Cosigner = n.FormatAddress("", keys[0]), n.FormatAddress("", keys[1])
	res.LockedUntil = time.Now().Add(time.Hour).Truncate(time.Second)
	out := func(asset ids.ID, amount, locktime uint64, threshold uint32, addrs ...ids.ShortID) *avax.TransferableOutput {
		addrs = slices.Clone(addrs)
		utils.Sort(addrs)
		return &avax.TransferableOutput{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: amount,
			OutputOwners: secp256k1fx.OutputOwners{Locktime: locktime, Threshold: threshold, Addrs: addrs}}}
	}
	err = n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueBaseTx([]*avax.TransferableOutput{
			out(n.AVAXAssetID, 5*units.Avax, 0, 2, keys...),
			out(n.AVAXAssetID, units.Avax, uint64(res.LockedUntil.Unix()), 1, keys[0]),
			out(n.AVAXAssetID, units.Avax/2, 0, 1, keys[0]),
		})
		if err != nil {
			return fmt.Errorf("P-chain multisig and time-locked outputs: %w", err)
		}
		res.MultisigPTx = tx.ID()
		xtx, err := w.X().IssueBaseTx([]*avax.TransferableOutput{
			out(n.AVAXAssetID, 3*units.Avax, 0, 2, keys[0], keys[1]),
			out(issued.AssetID, 250, 0, 1, keys[0]),
		})
		if err != nil {
			return fmt.Errorf("X-chain multisig outputs: %w", err)
		}
		res.MultisigXTx = xtx.ID()
		return nil
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(progress, "devnet: deploying ERC-20, ERC-721 and ERC-1155 contracts on the C-chain, with transfers...")
	res.EVMChainID = n.EVMChainID
	if res.EVM, err = contracts.Run(ctx, n); err != nil {
		return nil, fmt.Errorf("the C-chain's token contracts: %w", err)
	}
	return res, nil
}

// surface is one thing to try: what it shows and the command.
type surface struct {
	what, cmd string
}

// demoSurfaces are the curl commands that show what the demo issued, one
// per surface avaindex serves.
func demoSurfaces(base string, d *demoResult) []surface {
	v1 := base + "/v1/networks/" + demoNetwork
	get := func(what, path string) surface {
		return surface{what, fmt.Sprintf("curl -s '%s%s'", v1, path)}
	}
	rpc := func(what, path, method, params string) surface {
		return surface{what, fmt.Sprintf(`curl -s -X POST -H 'content-type: application/json' %s%s -d '{"jsonrpc":"2.0","id":1,"method":"%s","params":%s}'`,
			base, path, method, params)}
	}
	s := []surface{
		get("P-chain blocks, newest first", "/blockchains/p-chain/blocks?pageSize=5"),
		get("X-chain blocks", "/blockchains/x-chain/blocks?pageSize=5"),
		get("C-chain blocks with atomic txs", "/blockchains/c-chain/blocks?pageSize=5"),
		get("the subnet converted to an L1 (ConvertSubnetToL1Tx)", "/blockchains/p-chain/transactions/"+d.ConvertSubnetToL1.TxID.String()),
		get("the validator (AddPermissionlessValidatorTx)", "/blockchains/p-chain/transactions/"+d.AddValidatorTx.String()),
		get("its reward (RewardValidatorTx)", "/blockchains/p-chain/transactions/"+d.RewardValidatorTx.String()),
		get("the validator's and delegator's rewards", "/rewards?nodeIds="+d.ValidatorNode.String()),
		get("multisig (2-of-3) and time-locked UTXOs on the P-chain", "/blockchains/p-chain/utxos?addresses="+d.Holder+","+d.Cosigner),
		get("the P-chain tx that made them", "/blockchains/p-chain/transactions/"+d.MultisigPTx.String()),
		get("the X-chain asset's transactions", "/blockchains/x-chain/assets/"+d.AssetID.String()+"/transactions"),
		get("multisig (2-of-2) AVAX and the asset on the X-chain", "/blockchains/x-chain/utxos?addresses="+d.Holder+","+d.Cosigner),
		get("a C-chain export to the P-chain", "/blockchains/c-chain/transactions/"+d.CExportToP.String()),
		get("the P-chain's import of it", "/blockchains/p-chain/transactions/"+d.PImportFromC.String()),
		get("atomic UTXOs on the C-chain", "/blockchains/c-chain/utxos?addresses="+testnet.LocalAddress+"&includeSpent=true"),
		rpc("node API: a P-chain block as JSON", "/ext/bc/P", "platform.getBlockByHeight", `{"height":1,"encoding":"json"}`),
		rpc("node API: the holder's P-chain balance (its time-locked AVAX too)", "/ext/bc/P", "platform.getBalance", `{"addresses":["P-`+d.Holder+`"]}`),
		rpc("node API: the validator's reward UTXOs", "/ext/bc/P", "platform.getRewardUTXOs", `{"txID":"`+d.AddValidatorTx.String()+`","encoding":"hex"}`),
		rpc("node API: the X-chain's last block from the container index", "/ext/index/X/block", "index.getLastAccepted", `{"encoding":"hex"}`),
	}
	return append(s, evmSurfaces(base, d)...)
}

// evmSurfaces are the commands of the EVM chains' Data API
// (/v1/chains/...) that show what the demo did on the C-chain: its tokens,
// their transfers, the factory's CREATE2 child and the balances.
func evmSurfaces(base string, d *demoResult) []surface {
	if d.EVM == nil {
		return nil
	}
	s := d.EVM
	chain := fmt.Sprintf("%s/v1/chains/%d", base, d.EVMChainID)
	get := func(what, url string) surface { return surface{what, fmt.Sprintf("curl -s '%s'", url)} }
	return []surface{
		get("the EVM chains served", base+"/v1/chains"),
		get("the ERC-20 token's metadata", chain+"/addresses/"+s.Token20.Address.Hex()),
		get("its transfers: a mint, a transfer, a transferFrom", chain+"/tokens/"+s.Token20.Address.Hex()+"/transfers"),
		get("the ERC-721 collection's transfers", chain+"/tokens/"+s.NFT721.Address.Hex()+"/transfers"),
		get("its tokens with their metadata (data: URIs, read without a network)", chain+"/nfts/collections/"+s.NFT721.Address.Hex()+"/tokens"),
		get("the ERC-1155 tokens' metadata (one by its {id} template)", chain+"/nfts/collections/"+s.Multi1155.Address.Hex()+"/tokens"),
		get("Alice's ERC-721 transfers", chain+"/addresses/"+s.Alice.Hex()+"/transactions:listErc721"),
		get("Bob's ERC-1155 transfers (a batch)", chain+"/addresses/"+s.Bob.Hex()+"/transactions:listErc1155"),
		get("the contracts the demo key deployed", chain+"/contracts/"+s.Deployer.Hex()+"/deployments"),
		get("a factory's CREATE2 child: its deployment tx", chain+"/contracts/"+s.ChildCreate2.Hex()+"/transactions:getDeployment"),
		get("Alice's AVAX balance when she got her NFT", fmt.Sprintf("%s/addresses/%s/balances:getNative?blockNumber=%d",
			chain, s.Alice.Hex(), s.Receipts["transferFrom erc721"].BlockNumber.Uint64())),
		get("and now", chain+"/addresses/"+s.Alice.Hex()+"/balances:getNative"),
	}
}

func printSurfaces(w io.Writer, list []surface) {
	fmt.Fprintln(w, "\nThe demo transactions are indexed; try:")
	for _, s := range list {
		fmt.Fprintf(w, "\n  # %s\n  %s\n", s.what, s.cmd)
	}
	fmt.Fprintln(w, "\n"+demoDone)
}

// demoDone is the last line the demo prints.
const demoDone = "(The demo is done; --demo=false skips it.)"

// waitIndexed waits until avaindex at base has indexed the P-, X- and
// C-chain (its atomic txs, and as an EVM chain) up to the node's current
// heights.
func waitIndexed(ctx context.Context, nodeURL, base string, evmChainID uint64) error {
	want, err := nodeHeights(ctx, nodeURL)
	if err != nil {
		return err
	}
	want[fmt.Sprintf("evm:%d", evmChainID)] = want["C"]
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		var r struct {
			Indexer struct {
				Heights map[string]uint64 `json:"heights"`
			} `json:"indexer"`
		}
		if err := getJSON(ctx, base+"/readyz", &r); err == nil {
			done := true
			for c, h := range want {
				done = done && r.Indexer.Heights[c] >= h
			}
			if done {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("avaindex did not index the demo transactions: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// waitNFTMetadata waits until the metadata of the demo's NFTs is fetched
// (their data: URIs need no network), so that the commands printed show it.
func waitNFTMetadata(ctx context.Context, base string, d *demoResult) error {
	if d.EVM == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		pending := 0
		for _, c := range []common.Address{d.EVM.NFT721.Address, d.EVM.Multi1155.Address} {
			var r struct {
				Tokens []struct {
					Metadata struct {
						IndexStatus string `json:"indexStatus"`
					} `json:"metadata"`
				} `json:"tokens"`
			}
			err := getJSON(ctx, fmt.Sprintf("%s/v1/chains/%d/nfts/collections/%s/tokens", base, d.EVMChainID, c.Hex()), &r)
			if err != nil || len(r.Tokens) == 0 {
				pending++
			}
			for _, t := range r.Tokens {
				if t.Metadata.IndexStatus == "UNINDEXED" {
					pending++
				}
			}
		}
		if pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("avaindex did not fetch the demo NFTs' metadata: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// nodeHeights returns the node's P-, X- and C-chain heights, keyed as
// /readyz keys them.
func nodeHeights(ctx context.Context, nodeURL string) (map[string]uint64, error) {
	c := node.New(nodeURL)
	p, err := c.PHeight(ctx)
	if err != nil {
		return nil, err
	}
	x, err := c.XHeight(ctx)
	if err != nil {
		return nil, err
	}
	cc, err := c.CHeight(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]uint64{"P": p, "X": x, "C": cc}, nil
}

func getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

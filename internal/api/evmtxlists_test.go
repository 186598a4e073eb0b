package api

import (
	"strconv"
	"testing"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestEVMTransactionEndpoints: a tx by hash with everything it did (the
// same body as its contract's deployment tx), a block's txs in block
// order, and the latest txs of the chain and of every chain, most recent
// first, with the status filter.
func TestEVMTransactionEndpoints(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, dsn string) {
		h := newEVMTestAPI(t, dsn, evmTestChains(), nil)
		base := "/v1/chains/99999"

		// A deployment tx is the same by either operation.
		for _, c := range []struct {
			contract common.Address
			tx       byte
		}{{token20, 1}, {nft721, 2}} {
			var byHash, deployment GetTransactionResponse
			getOK(t, h, base+"/transactions/"+txHash(c.tx).Hex(), &byHash)
			getOK(t, h, base+"/contracts/"+c.contract.Hex()+"/transactions:getDeployment", &deployment)
			jsonEqual(t, "tx "+txHash(c.tx).Hex(), byHash, deployment)
		}
		// The failed ERC-1155 batch of block 3.
		var d GetTransactionResponse
		getOK(t, h, base+"/transactions/"+txHash(4).Hex(), &d)
		n := d.NativeTransaction
		if n.TxStatus != "0" || n.BlockNumber != "3" || n.BlockIndex != 1 || n.From.Address != alice.Hex() || n.To.Address != multi1155.Hex() ||
			len(d.Erc1155Transfers) != 2 || d.Erc1155Transfers[1].Value != "6" || d.Erc1155Transfers[1].Erc1155Token.TokenID != "101" ||
			n.BlockTimestampMilliseconds != nil {
			t.Errorf("the ERC-1155 batch = %+v", d)
		}
		// Block 4's tx has its block's Granite fields.
		d = GetTransactionResponse{}
		getOK(t, h, base+"/transactions/"+txHash(6).Hex(), &d)
		if n := d.NativeTransaction; n.BlockTimestampMilliseconds == nil || *n.BlockTimestampMilliseconds != 1_700_000_008_375 ||
			n.BlockMinDelayExcess == nil || *n.BlockMinDelayExcess != 7_477_290 {
			t.Errorf("block 4's tx = %+v", n)
		}
		getError(t, h, base+"/transactions/"+txHash(99).Hex(), 404, "transaction "+txHash(99).Hex()+" is not indexed on chain 99999")
		getError(t, h, base+"/transactions/0x1234", 400, "txHash must be a 0x-prefixed 32-byte hex hash")

		// Listed txs say what getTransaction says of them, but the input
		// and the fee fields.
		listed := func(hash common.Hash) NativeTransaction {
			var d GetTransactionResponse
			getOK(t, h, base+"/transactions/"+hash.Hex(), &d)
			f := d.NativeTransaction.NativeTransaction
			// Lists name the ends with their curated metadata only.
			f.From, f.To = RichAddress{Address: f.From.Address}, RichAddress{Address: f.To.Address}
			return f
		}
		curated := func(tx NativeTransaction) NativeTransaction {
			if tx.To.Address == token20.Hex() {
				eighteen := 18
				tx.To = RichAddress{Address: token20.Hex(), Name: "Curated Token", Symbol: "CUR", Decimals: &eighteen, LogoURI: "https://example.org/cur.png"}
			}
			return tx
		}
		wantOf := func(hashes ...byte) []NativeTransaction {
			var out []NativeTransaction
			for _, n := range hashes {
				out = append(out, curated(listed(txHash(n))))
			}
			return out
		}
		collect := func(target string, size int) []NativeTransaction {
			var out []NativeTransaction
			for _, p := range pagesOf(t, h, target, size, func(p *ListNativeTransactionsResponse) string { return p.NextPageToken }) {
				out = append(out, p.Transactions...)
			}
			return out
		}

		jsonEqual(t, "block 3's txs", collect(base+"/blocks/3/transactions", 2), wantOf(3, 4, 5))
		jsonEqual(t, "block 3's txs by hash, pageSize 0", collect(base+"/blocks/"+common.Hash{0xb1, 3}.Hex()+"/transactions", 0), wantOf(3, 4, 5))
		jsonEqual(t, "block 0's txs", collect(base+"/blocks/0/transactions", 0), []NativeTransaction(nil))
		getError(t, h, base+"/blocks/9/transactions", 404, "block 9 is not indexed")
		getError(t, h, base+"/blocks/3/transactions?pageSize=-1", 400, "pageSize")

		all := wantOf(6, 5, 4, 3, 2, 1)
		for _, path := range []string{base + "/transactions", "/v1/transactions", "/v1/chains/allTransactions"} {
			jsonEqual(t, path, collect(path, 4), all)
			jsonEqual(t, path+" failed", collect(path+"?status=failed", 1), wantOf(4))
			jsonEqual(t, path+" successful", collect(path+"?status=success", 2), wantOf(6, 5, 3, 2, 1))
			getError(t, h, path+"?status=reverted", 400, "status must be one of failed, success")
		}
		var none ListNativeTransactionsResponse
		getOK(t, h, "/v1/transactions?network=fuji", &none)
		if len(none.Transactions) != 0 {
			t.Errorf("the txs of fuji: %+v", none.Transactions)
		}
		if all[0].Method == nil || all[0].Method.MethodHash != "0x42842e0e" || all[0].Method.MethodName != knownMethods["42842e0e"] ||
			all[0].BlockTimestampMilliseconds == nil || all[5].Method.CallType != "CONTRACT_CREATION" || all[5].To.Address != token20.Hex() {
			t.Errorf("listed txs: %+v", all)
		}
		for i, tx := range all {
			if tx.TxHash != txHash(byte(6-i)).Hex() || tx.ChainID != "99999" || tx.BlockNumber != strconv.Itoa([]int{4, 3, 3, 3, 2, 1}[i]) {
				t.Errorf("listed tx %d = %+v", i, tx)
			}
		}
	})
}

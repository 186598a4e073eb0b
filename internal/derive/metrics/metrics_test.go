package metrics

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/chainmetrics"
)

func TestEVMBlocks(t *testing.T) {
	a, b, c, d, e := common.Address{0xa}, common.Address{0xb}, common.Address{0xc}, common.Address{0xd}, common.Address{0xe}
	blocks := []*internal.EVMBlockData{{
		EVMBlock: internal.EVMBlock{Number: 3, Timestamp: time.Unix(1000, 0), GasUsed: 21},
		Txs: []internal.EVMTx{
			{From: a, To: &b, GasPrice: big.NewInt(10), GasUsed: 2},
			{From: c, GasPrice: big.NewInt(30), GasUsed: 1}, // a creation: no recipient
		},
		Transfers: []internal.EVMTransfer{{From: d, To: e}},
		Contracts: []internal.EVMContract{{Deployer: c}},
	}, {
		EVMBlock: internal.EVMBlock{Number: 4}, // no time: counted as 0
	}}
	bs := func(addrs ...common.Address) [][]byte {
		var out [][]byte
		for _, a := range addrs {
			out = append(out, a.Bytes())
		}
		return out
	}
	want := []chainmetrics.Block{{
		Height: 3, Time: 1000, Txs: 2, GasUsed: 21, GasPriceSum: 40, GasPriceMax: 30, Fees: 50, Contracts: 1,
		Addresses: bs(b, e), Senders: bs(a, c, d), Deployers: bs(c),
	}, {
		Height: 4,
	}}
	if got := EVMBlocks(blocks); !reflect.DeepEqual(got, want) {
		t.Errorf("EVMBlocks =\n%+v\nwant\n%+v", got, want)
	}
}

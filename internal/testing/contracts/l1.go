package contracts

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"

	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// subnet-evm's precompiles that RunL1 calls.
var (
	NativeMinter = common.HexToAddress("0x0200000000000000000000000000000000000001")
	FeeManager   = common.HexToAddress("0x0200000000000000000000000000000000000003")
)

// L1FeeConfig is the fee config RunL1 sets with the fee manager: the L1
// genesis's (testnet.L1Genesis) with a higher minimum base fee.
var L1FeeConfig = []int64{
	20_000_000,    // gasLimit
	2,             // targetBlockRate
	1_500_000_000, // minBaseFee
	100_000_000,   // targetGas
	48,            // baseFeeChangeDenominator
	0,             // minBlockGasCost
	1_000_000,     // maxBlockGasCost
	0,             // blockGasCostStep
}

// L1Scenario is what RunL1 did on an L1's chain, from the local key.
type L1Scenario struct {
	// Alice received Sent natively and AliceTokens of Token; Bob was
	// minted Minted by the native minter. Both are new to the run.
	Alice, Bob  common.Address
	Sent        *big.Int
	Minted      *big.Int
	Token       common.Address
	TokenSupply int64
	AliceTokens int64
	// FeeChanged is the block of the fee manager's setFeeConfig
	// (L1FeeConfig); a second transfer to Alice follows it.
	FeeChanged uint64
	// First and Last are the blocks of the first and the last tx.
	First, Last uint64
}

// RunL1 issues, on l's chain, a TestToken20 deployed, a native transfer to
// a new address (Alice), a native-minter mint to another (Bob), a
// fee-manager change (L1FeeConfig) and a transfer to Alice under it, and
// the token minted to the local key and partly transferred to Alice, each
// tx committed before the next.
func RunL1(ctx context.Context, l *testnet.EVML1) (*L1Scenario, error) {
	s := &L1Scenario{Sent: big.NewInt(1_000_000_007), Minted: big.NewInt(424_242), TokenSupply: 5000, AliceTokens: 1234}
	send := func(what string, to *common.Address, value *big.Int, data []byte) (common.Address, error) {
		r, err := l.SendEVMTx(ctx, to, value, data, 0)
		if err != nil {
			return common.Address{}, fmt.Errorf("%s: %w", what, err)
		}
		if s.First == 0 {
			s.First = r.BlockNumber.Uint64()
		}
		s.Last = r.BlockNumber.Uint64()
		return r.ContractAddress, nil
	}
	// The token's address is new on every run (the key's nonce): Alice and
	// Bob are named after it.
	var err error
	if s.Token, err = send("deploy erc20", nil, nil, Token20.Deploy("L1 Token", "L1T", uint8(18))); err != nil {
		return nil, err
	}
	s.Alice = common.BytesToAddress(crypto.Keccak256([]byte("l1 alice"), s.Token[:]))
	s.Bob = common.BytesToAddress(crypto.Keccak256([]byte("l1 bob"), s.Token[:]))
	if _, err := send("transfer", &s.Alice, s.Sent, nil); err != nil {
		return nil, err
	}
	mint := append(crypto.Keccak256([]byte("mintNativeCoin(address,uint256)"))[:4],
		append(common.LeftPadBytes(s.Bob[:], 32), common.LeftPadBytes(s.Minted.Bytes(), 32)...)...)
	if _, err := send("mint", &NativeMinter, nil, mint); err != nil {
		return nil, err
	}
	setFee := crypto.Keccak256([]byte("setFeeConfig(uint256,uint256,uint256,uint256,uint256,uint256,uint256,uint256)"))[:4]
	for _, v := range L1FeeConfig {
		setFee = append(setFee, common.LeftPadBytes(big.NewInt(v).Bytes(), 32)...)
	}
	if _, err := send("set fee config", &FeeManager, nil, setFee); err != nil {
		return nil, err
	}
	s.FeeChanged = s.Last
	if _, err := send("transfer after the fee change", &s.Alice, s.Sent, nil); err != nil {
		return nil, err
	}
	if _, err := send("mint erc20", &s.Token, nil, MintERC20(l.Net.EthAddr, big.NewInt(s.TokenSupply))); err != nil {
		return nil, err
	}
	if _, err := send("transfer erc20", &s.Token, nil, TransferERC20(s.Alice, big.NewInt(s.AliceTokens))); err != nil {
		return nil, err
	}
	return s, nil
}

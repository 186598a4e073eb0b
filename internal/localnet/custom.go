package localnet

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/staking"
	"github.com/ava-labs/avalanchego/upgrade"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/libevm/core"
	"github.com/ava-labs/libevm/params"
)

// CustomNetworkID is the network id of the custom network when
// Options.NetworkID is zero. Its bech32 HRP is "custom".
const CustomNetworkID uint32 = 88888

// Balances of the pre-funded local key (ewoq) in a custom network's genesis.
const (
	// CustomXFunds is the key's X-chain balance.
	CustomXFunds = 30 * units.MegaAvax
	// CustomPFunds is the key's unlocked P-chain balance.
	CustomPFunds = 20 * units.MegaAvax
	// customStake is what the node stakes as the only genesis validator.
	customStake = units.MegaAvax
)

// customCFunds is the key's C-chain balance in wei (10^30).
var customCFunds = new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil)

// Files, under the node's directory, that give a custom network's node its
// identity. They are written once and reused, so a restarted node keeps its
// node id, its BLS key and its network.
const (
	customGenesisFile = "genesis.json"
	customTLSKeyFile  = "staking/staker.key"
	customTLSCertFile = "staking/staker.crt"
	customSignerFile  = "staking/signer.key"
)

// customIdentity is a custom network's genesis and its only validator's keys.
type customIdentity struct {
	NodeID    ids.NodeID
	Genesis   []byte // genesis.UnparsedConfig as JSON
	TLSKey    []byte // PEM
	TLSCert   []byte // PEM
	SignerKey []byte // raw BLS secret key
}

// loadOrCreateCustom reads the custom network's identity from dir, or
// creates and persists a new one for networkID when dir has none.
func loadOrCreateCustom(dir string, networkID uint32) (*customIdentity, error) {
	paths := []string{customGenesisFile, customTLSKeyFile, customTLSCertFile, customSignerFile}
	contents := make([][]byte, len(paths))
	found := 0
	for i, p := range paths {
		b, err := os.ReadFile(filepath.Join(dir, p))
		switch {
		case err == nil:
			contents[i] = b
			found++
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
	}
	switch found {
	case 0:
		return createCustom(dir, networkID)
	case len(paths):
	default:
		return nil, fmt.Errorf("localnet: %s has only some of the custom network's files %v; remove them or the directory", dir, paths)
	}
	id := &customIdentity{Genesis: contents[0], TLSKey: contents[1], TLSCert: contents[2], SignerKey: contents[3]}
	var g genesis.UnparsedConfig
	if err := json.Unmarshal(id.Genesis, &g); err != nil {
		return nil, fmt.Errorf("localnet: %s: %w", customGenesisFile, err)
	}
	if g.NetworkID != networkID {
		return nil, fmt.Errorf("localnet: %s holds network %d, not %d", dir, g.NetworkID, networkID)
	}
	nodeID, err := nodeIDOf(id.TLSKey, id.TLSCert)
	if err != nil {
		return nil, err
	}
	if _, err := localsigner.FromBytes(id.SignerKey); err != nil {
		return nil, fmt.Errorf("localnet: %s: %w", customSignerFile, err)
	}
	if len(g.InitialStakers) != 1 || g.InitialStakers[0].NodeID != nodeID {
		return nil, fmt.Errorf("localnet: the genesis in %s does not have node %s as its only validator", dir, nodeID)
	}
	id.NodeID = nodeID
	return id, nil
}

// createCustom makes fresh TLS and BLS keys and a genesis whose only
// validator is the node they identify, and writes them to dir.
func createCustom(dir string, networkID uint32) (*customIdentity, error) {
	cert, key, err := staking.NewCertAndKeyBytes()
	if err != nil {
		return nil, fmt.Errorf("localnet: staking key: %w", err)
	}
	sk, err := localsigner.New()
	if err != nil {
		return nil, fmt.Errorf("localnet: BLS key: %w", err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		return nil, fmt.Errorf("localnet: BLS proof of possession: %w", err)
	}
	nodeID, err := nodeIDOf(key, cert)
	if err != nil {
		return nil, err
	}
	g, err := customGenesis(networkID, nodeID, pop, time.Now())
	if err != nil {
		return nil, err
	}
	id := &customIdentity{NodeID: nodeID, Genesis: g, TLSKey: key, TLSCert: cert, SignerKey: sk.ToBytes()}

	if err := os.MkdirAll(filepath.Join(dir, "staking"), 0o700); err != nil {
		return nil, err
	}
	// Keys first, genesis last: a crash in between leaves a partial set,
	// which loadOrCreateCustom refuses rather than silently re-keying.
	for _, f := range []struct {
		path string
		b    []byte
	}{
		{customTLSKeyFile, id.TLSKey},
		{customTLSCertFile, id.TLSCert},
		{customSignerFile, id.SignerKey},
		{customGenesisFile, id.Genesis},
	} {
		if err := os.WriteFile(filepath.Join(dir, f.path), f.b, 0o600); err != nil {
			return nil, err
		}
	}
	return id, nil
}

func nodeIDOf(keyPEM, certPEM []byte) (ids.NodeID, error) {
	tlsCert, err := staking.LoadTLSCertFromBytes(keyPEM, certPEM)
	if err != nil {
		return ids.EmptyNodeID, fmt.Errorf("localnet: staking key pair: %w", err)
	}
	cert, err := staking.ParseCertificate(tlsCert.Leaf.Raw)
	if err != nil {
		return ids.EmptyNodeID, fmt.Errorf("localnet: staking certificate: %w", err)
	}
	return ids.NodeIDFromCert(cert), nil
}

// customGenesis describes a network whose only validator is nodeID (staking
// customStake from an address nobody holds) and whose only funded key is the
// local ewoq key, on every chain.
func customGenesis(networkID uint32, nodeID ids.NodeID, pop *signer.ProofOfPossession, now time.Time) ([]byte, error) {
	hrp := constants.GetHRP(networkID)
	xAddr := func(addr ids.ShortID) (string, error) { return address.Format("X", hrp, addr[:]) }

	stakeAddr, err := xAddr(ids.GenerateTestShortID())
	if err != nil {
		return nil, err
	}
	rewardAddr, err := xAddr(ids.GenerateTestShortID())
	if err != nil {
		return nil, err
	}
	keyAddr, err := xAddr(genesis.EWOQKey.Address())
	if err != nil {
		return nil, err
	}

	cGenesis, err := json.Marshal(&core.Genesis{
		Config:     &params.ChainConfig{ChainID: new(big.Int).SetUint64(uint64(networkID))},
		Difficulty: big.NewInt(0),
		// Every Avalanche upgrade is active from the start.
		Timestamp: uint64(upgrade.InitiallyActiveTime.Unix()),
		GasLimit:  100_000_000,
		Alloc:     core.GenesisAlloc{genesis.EWOQKey.EthAddress(): {Balance: customCFunds}},
	})
	if err != nil {
		return nil, fmt.Errorf("localnet: C-chain genesis: %w", err)
	}

	// The stake stays locked for longer than the validator validates.
	stakeLock := uint64(now.Add(2 * 365 * 24 * time.Hour).Unix())
	cfg := genesis.UnparsedConfig{
		NetworkID: networkID,
		Allocations: []genesis.UnparsedAllocation{
			{
				ETHAddr:        "0x0000000000000000000000000000000000000000",
				AVAXAddr:       stakeAddr,
				UnlockSchedule: []genesis.LockedAmount{{Amount: customStake, Locktime: stakeLock}},
			},
			{
				ETHAddr:        "0x0000000000000000000000000000000000000000",
				AVAXAddr:       keyAddr,
				InitialAmount:  CustomXFunds,
				UnlockSchedule: []genesis.LockedAmount{{Amount: CustomPFunds}},
			},
		},
		// The P-chain's gas capacity refills with the time since its last
		// block: a genesis stamped now could not take a tx for seconds.
		StartTime:            uint64(now.Add(-time.Hour).Unix()),
		InitialStakedFunds:   []string{stakeAddr},
		InitialStakeDuration: 365 * 24 * 60 * 60, // the default maximum stake duration
		InitialStakers: []genesis.UnparsedStaker{{
			NodeID:        nodeID,
			RewardAddress: rewardAddr,
			DelegationFee: reward.PercentDenominator / 50, // 2%
			Signer:        pop,
		}},
		CChainGenesis: string(cGenesis),
		Message:       "avaindex custom network",
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(cfg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// customArgs returns the avalanchego flags that run the custom network
// described by id: sybil protection on, the node its own single validator
// (sample and quorum size 1, no bootstrappers), and P-chain heights taken
// from the current height so that warp messages see fresh validator sets.
func customArgs(networkID uint32, id *customIdentity) []string {
	b64 := base64.StdEncoding.EncodeToString
	flag := func(key, value string) string { return "--" + key + "=" + value }
	return []string{
		flag(config.NetworkNameKey, strconv.FormatUint(uint64(networkID), 10)),
		flag(config.SybilProtectionEnabledKey, "true"),
		flag(config.GenesisFileContentKey, b64(id.Genesis)),
		flag(config.StakingTLSKeyContentKey, b64(id.TLSKey)),
		flag(config.StakingCertContentKey, b64(id.TLSCert)),
		flag(config.StakingSignerKeyContentKey, b64(id.SignerKey)),
		flag(config.SnowSampleSizeKey, "1"),
		flag(config.SnowQuorumSizeKey, "1"),
		flag(config.BootstrapIPsKey, ""),
		flag(config.BootstrapIDsKey, ""),
		flag(config.ProposerVMUseCurrentHeightKey, "true"),
	}
}

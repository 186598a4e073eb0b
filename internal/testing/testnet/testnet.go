// Package testnet gives tests a real single-node Avalanche local network
// (network id 12345) running on loopback, and helpers that issue real
// transactions of every kind on it.
//
// The node is the repository's cmd/localnet binary. It is built once per
// source version (see [BinaryEnv]) and started once per test process, lazily,
// by the first call to [Get]. A package that uses Get must stop the node in
// its TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testnet.Main(m)) }
//
// All transaction helpers spend from the pre-funded local key and are
// serialized on the Network, so tests may call them concurrently.
package testnet

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/graft/coreth/ethclient"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/libevm/common"
)

// The pre-funded key of avalanchego's local network and its addresses.
const (
	LocalKey        = "PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN"
	LocalAddress    = "local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	LocalEthAddress = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"

	// LocalNetworkID is the id of avalanchego's local network.
	LocalNetworkID uint32 = 12345
	// CChainEVMID is the EVM chain id of the local network's C-chain.
	CChainEVMID uint64 = 43112
)

// Time limits of starting the network.
const (
	// BuildTimeout bounds building cmd/localnet when no cached binary
	// exists. A cold build takes about 8 minutes on a small machine; with a
	// warm Go build cache it takes seconds.
	BuildTimeout = 15 * time.Minute
	// StartTimeout bounds starting the node until P, X and C are
	// bootstrapped and the network is described.
	StartTimeout = 3 * time.Minute
	// StopTimeout is how long Main waits after SIGTERM before SIGKILL.
	StopTimeout = 30 * time.Second
)

// SkipMessage is the reason Get skips a test in -short mode.
const SkipMessage = "SKIP: needs the real local network; run without -short"

// Network is a running local network. Its fields are read from the node
// when it starts (the key and addresses are checked against the node's HRP).
type Network struct {
	// URL is the node's HTTP API base, e.g. http://127.0.0.1:PORT.
	URL string
	// GenesisFile is the custom network's genesis file (avaindex needs it
	// with --genesis-file); empty for the local network.
	GenesisFile string
	// NetworkID is the node's network id (12345).
	NetworkID uint32
	// HRP is the bech32 human-readable part of the network ("local").
	HRP string
	// NodeID is the running node's own id.
	NodeID ids.NodeID

	// Key is the pre-funded local key (ewoq).
	Key *secp256k1.PrivateKey
	// Addr is Key's short address, used on the P- and X-chains.
	Addr ids.ShortID
	// Address is Addr in bech32 without a chain prefix: "local18jma8...".
	Address string
	// EthAddr is Key's EVM address on the C-chain.
	EthAddr common.Address

	// PChainID is the P-chain's id (always ids.Empty).
	PChainID ids.ID
	// XChainID and CChainID are read from the node.
	XChainID ids.ID
	CChainID ids.ID
	// AVAXAssetID is the id of AVAX, read from the X-chain.
	AVAXAssetID ids.ID
	// EVMChainID is the C-chain's EVM chain id (43112), read from the node.
	EVMChainID uint64

	// MinValidatorStake and MinDelegatorStake are the primary network's
	// minimum stakes in nAVAX, read from the P-chain.
	MinValidatorStake uint64
	MinDelegatorStake uint64

	// mu serializes everything that spends the key's funds so that wallets
	// never pick the same UTXOs or EVM nonce twice.
	mu sync.Mutex
}

// PAddress returns the key's P-chain address, "P-local1...".
func (n *Network) PAddress() string { return "P-" + n.Address }

// XAddress returns the key's X-chain address, "X-local1...".
func (n *Network) XAddress() string { return "X-" + n.Address }

// FormatAddress formats a short address in bech32 for chain ("P", "X" or
// "C"; "" leaves the chain prefix off).
func (n *Network) FormatAddress(chain string, addr ids.ShortID) string {
	s, err := address.FormatBech32(n.HRP, addr[:])
	if err != nil {
		panic(err) // only fails for an invalid HRP
	}
	if chain == "" {
		return s
	}
	return chain + "-" + s
}

// ChainID returns the blockchain id of "P", "X" or "C".
func (n *Network) ChainID(alias string) (ids.ID, error) {
	switch alias {
	case "P":
		return n.PChainID, nil
	case "X":
		return n.XChainID, nil
	case "C":
		return n.CChainID, nil
	}
	return ids.Empty, fmt.Errorf("unknown chain %q", alias)
}

// PClient returns a P-chain API client.
func (n *Network) PClient() *platformvm.Client { return platformvm.NewClient(n.URL) }

// XClient returns an X-chain API client.
func (n *Network) XClient() *avm.Client { return avm.NewClient(n.URL, "X") }

// InfoClient returns an info API client.
func (n *Network) InfoClient() *info.Client { return info.NewClient(n.URL) }

// EthRPCURL returns the URL of the C-chain's eth JSON-RPC endpoint.
func (n *Network) EthRPCURL() string { return n.URL + "/ext/bc/C/rpc" }

// EthClient dials the C-chain's eth JSON-RPC endpoint. Close it when done.
func (n *Network) EthClient(ctx context.Context) (*ethclient.Client, error) {
	return ethclient.DialContext(ctx, n.EthRPCURL())
}

// lazyNetwork is a network started on first use, once per test process,
// and stopped by Main.
type lazyNetwork struct {
	name   string   // for messages: "local", "custom"
	wantID uint32   // the network id the node must run
	args   []string // extra localnet flags

	mu      sync.Mutex
	started bool
	net     *Network
	proc    *process
	err     error
}

var (
	local  = &lazyNetwork{name: "local", wantID: LocalNetworkID}
	custom = &lazyNetwork{name: "custom", wantID: CustomNetworkID,
		args: []string{"--network", "custom", "--network-id", fmt.Sprint(CustomNetworkID)}}
)

// get returns the network, starting it on first use; it fails the test if
// the network cannot be started and skips it in -short mode.
func (l *lazyNetwork) get(t testing.TB) *Network {
	t.Helper()
	if testing.Short() {
		t.Skip(SkipMessage)
	}
	n, err := l.start()
	if err != nil {
		t.Fatalf("testnet: the real %s network is not available: %v", l.name, err)
	}
	return n
}

// start starts the network once per process and remembers the outcome, so a
// failed start fails every later get quickly with the same error.
func (l *lazyNetwork) start() (*Network, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return l.net, l.err
	}
	l.started = true
	l.net, l.proc, l.err = l.launch()
	return l.net, l.err
}

// stop stops the node if it is running and removes its data; later calls
// to get fail.
func (l *lazyNetwork) stop() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.proc
	l.proc, l.net, l.started = nil, nil, true
	if l.err == nil {
		l.err = fmt.Errorf("the %s network was stopped", l.name)
	}
	if p == nil {
		return nil
	}
	return p.stop(StopTimeout)
}

func (l *lazyNetwork) launch() (*Network, *process, error) {
	buildCtx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
	bin, err := localnetBinary(buildCtx)
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("localnet binary: %w", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	p, uri, err := startProcess(ctx, bin, l.args...)
	if err != nil {
		return nil, nil, err
	}
	n, err := describe(ctx, uri, l.wantID)
	if err != nil {
		if stopErr := p.stop(StopTimeout); stopErr != nil {
			err = fmt.Errorf("%w (and stopping it: %v)", err, stopErr)
		}
		return nil, nil, err
	}
	if l.wantID == CustomNetworkID {
		n.GenesisFile = filepath.Join(p.dir, "node", "genesis.json")
	}
	return n, p, nil
}

// Get returns the process's local network, starting it on first use. It
// fails the test if the network cannot be started, and skips the test (with
// [SkipMessage]) when testing.Short() is set.
func Get(t testing.TB) *Network { return local.get(t) }

// Main runs the tests and then stops the networks that were started and
// removes their data. Use it from TestMain: os.Exit(testnet.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	for _, l := range []*lazyNetwork{local, custom} {
		if err := l.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testnet: stopping the %s network: %v\n", l.name, err)
		}
	}
	if err := l1Net.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testnet: stopping the L1 network: %v\n", err)
	}
	return code
}

// Attach returns the Network of a local-network node already running at
// uri (on loopback), for a program that started the node itself (cmd/devnet
// issues its demo transactions with the helpers).
func Attach(ctx context.Context, uri string) (*Network, error) {
	return describe(ctx, uri, LocalNetworkID)
}

// describe reads the Network of the node at uri, which must run network
// wantID (the local network or the custom one).
func describe(ctx context.Context, uri string, wantID uint32) (*Network, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("node URL %q: %w", uri, err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("node URL %q is not on loopback", uri)
	}

	key := new(secp256k1.PrivateKey)
	if err := key.UnmarshalText([]byte(LocalKey)); err != nil {
		return nil, fmt.Errorf("parsing the local key: %w", err)
	}
	n := &Network{
		URL:      uri,
		Key:      key,
		Addr:     key.Address(),
		EthAddr:  key.EthAddress(),
		PChainID: constants.PlatformChainID,
	}

	infoClient := info.NewClient(uri)
	if n.NetworkID, err = infoClient.GetNetworkID(ctx); err != nil {
		return nil, fmt.Errorf("info.getNetworkID: %w", err)
	}
	if n.NetworkID != wantID {
		return nil, fmt.Errorf("node runs network %d, want network %d", n.NetworkID, wantID)
	}
	n.HRP = constants.GetHRP(n.NetworkID)
	n.Address = n.FormatAddress("", n.Addr)
	if n.NetworkID == LocalNetworkID && n.Address != LocalAddress {
		return nil, fmt.Errorf("local key address is %s, want %s", n.Address, LocalAddress)
	}
	if n.NetworkID == CustomNetworkID && n.HRP != CustomHRP {
		return nil, fmt.Errorf("network %d has HRP %q, want %q", n.NetworkID, n.HRP, CustomHRP)
	}
	if n.EthAddr != common.HexToAddress(LocalEthAddress) {
		return nil, fmt.Errorf("local key EVM address is %s, want %s", n.EthAddr, LocalEthAddress)
	}
	if n.NodeID, _, err = infoClient.GetNodeID(ctx); err != nil {
		return nil, fmt.Errorf("info.getNodeID: %w", err)
	}
	if n.XChainID, err = infoClient.GetBlockchainID(ctx, "X"); err != nil {
		return nil, fmt.Errorf("info.getBlockchainID X: %w", err)
	}
	if n.CChainID, err = infoClient.GetBlockchainID(ctx, "C"); err != nil {
		return nil, fmt.Errorf("info.getBlockchainID C: %w", err)
	}
	asset, err := n.XClient().GetAssetDescription(ctx, "AVAX")
	if err != nil {
		return nil, fmt.Errorf("avm.getAssetDescription AVAX: %w", err)
	}
	n.AVAXAssetID = asset.AssetID
	if n.MinValidatorStake, n.MinDelegatorStake, err = n.PClient().GetMinStake(ctx, constants.PrimaryNetworkID); err != nil {
		return nil, fmt.Errorf("platform.getMinStake: %w", err)
	}

	ec, err := n.EthClient(ctx)
	if err != nil {
		return nil, fmt.Errorf("dialing the C-chain: %w", err)
	}
	defer ec.Close()
	chainID, err := ec.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("eth_chainId: %w", err)
	}
	if !chainID.IsUint64() {
		return nil, fmt.Errorf("eth_chainId %s out of range", chainID)
	}
	n.EVMChainID = chainID.Uint64()
	return n, nil
}

// ClosedURL returns the URL of a loopback port nothing listens on: a node
// that does not answer.
func ClosedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

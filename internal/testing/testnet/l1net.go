package testnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/config/node"
	"github.com/ava-labs/avalanchego/graft/coreth/ethclient"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
	"github.com/ava-labs/libevm/core/types"

	pwallet "github.com/ava-labs/avalanchego/wallet/chain/p/wallet"
	ethcommon "github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/localnet"
)

// A real subnet-evm L1: a custom network (as GetCustom's, sybil protection
// on, so that warp verifies) run by an avalanchego v1.14.0 node with the
// subnet-evm v0.8.0 plugin (tools/l1node; the main module's v1.14.2 speaks
// another RPCChainVM protocol than every subnet-evm release), with one
// subnet-evm chain converted to an L1 that the node validates.

// Values of the L1 that GetL1 starts.
const (
	// L1EVMChainID is its EVM chain id.
	L1EVMChainID uint64 = 78787
	// L1ChainName is its name on the P-chain.
	L1ChainName = "avaindex l1"
	// L1NodeWeight and L1NodeBalance are the node's as the L1's validator.
	L1NodeWeight  = 100
	L1NodeBalance = units.Avax
	// L1ManagerAddress is the L1's validator manager address on its chain
	// as the conversion names it; no contract is there.
	L1ManagerAddress = "0x0000000000000000000000000000000000001111"
	// L1StartTimeout bounds starting the L1 network once its binaries are
	// built: two node starts and the P-chain txs between them.
	L1StartTimeout = 4 * time.Minute
)

// L1KeepEnv names the environment variable that, when set, makes a failed
// start of the L1 network leave its directory (the node's logs).
const L1KeepEnv = "AVAINDEX_L1_KEEP"

// ICMMessengerDeployer is the sender of ICM v1.0.0's keyless
// TeleporterMessenger deployment, enabled by the L1's contract deployer
// allow list.
const ICMMessengerDeployer = "0x618FEdD9A45a8C456812ecAAE70C671c6249DfaC"

// L1MinBaseFee is the L1 genesis's feeConfig.minBaseFee, in wei.
var L1MinBaseFee = big.NewInt(1_000_000_000) // 1 gwei

// L1Funds is what the local key's EVM address holds in the L1's genesis.
var L1Funds = new(big.Int).Exp(big.NewInt(10), big.NewInt(27), nil)

// l1GenesisTime is the L1 genesis's timestamp, when its precompiles are
// activated: avalanchego's upgrade time of the local and custom networks
// (warp cannot be activated before Durango).
const l1GenesisTime = 1607144400

// L1Genesis is the subnet-evm genesis of the L1's chain: the local key
// funded and admin of the native minter, the fee manager and the contract
// deployer allow list, and warp on, every precompile active from the
// genesis.
func L1Genesis() []byte {
	admin := []string{LocalEthAddress}
	admins := map[string]any{"blockTimestamp": l1GenesisTime, "adminAddresses": admin}
	gasLimit := uint64(20_000_000)
	g := map[string]any{
		"config": map[string]any{
			"chainId":             L1EVMChainID,
			"homesteadBlock":      0,
			"eip150Block":         0,
			"eip155Block":         0,
			"eip158Block":         0,
			"byzantiumBlock":      0,
			"constantinopleBlock": 0,
			"petersburgBlock":     0,
			"istanbulBlock":       0,
			"muirGlacierBlock":    0,
			"feeConfig": map[string]any{
				"gasLimit":                 gasLimit,
				"targetBlockRate":          2,
				"minBaseFee":               L1MinBaseFee,
				"targetGas":                100_000_000,
				"baseFeeChangeDenominator": 48,
				// No block gas cost: any tip is enough.
				"minBlockGasCost":  0,
				"maxBlockGasCost":  1_000_000,
				"blockGasCostStep": 0,
			},
			"warpConfig":                 map[string]any{"blockTimestamp": l1GenesisTime, "quorumNumerator": 67},
			"contractNativeMinterConfig": admins,
			"feeManagerConfig":           admins,
			// ICM's keyless deployer may deploy the TeleporterMessenger.
			"contractDeployerAllowListConfig": map[string]any{"blockTimestamp": l1GenesisTime, "adminAddresses": admin,
				"enabledAddresses": []string{ICMMessengerDeployer}},
		},
		"alloc": map[string]any{
			LocalEthAddress: map[string]any{"balance": "0x" + L1Funds.Text(16)},
		},
		"nonce":      "0x0",
		"timestamp":  fmt.Sprintf("0x%x", l1GenesisTime),
		"extraData":  "0x",
		"gasLimit":   fmt.Sprintf("0x%x", gasLimit),
		"difficulty": "0x0",
		"mixHash":    "0x0000000000000000000000000000000000000000000000000000000000000000",
		"coinbase":   "0x0000000000000000000000000000000000000000",
		"number":     "0x0",
		"gasUsed":    "0x0",
		"parentHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
	}
	b, err := json.Marshal(g)
	if err != nil {
		panic(err) // only plain values above
	}
	return b
}

// l1ChainConfig is the L1 chain's config: an archive node with the tracer
// and warp APIs, as the C-chain's.
func l1ChainConfig(dir string) ([]byte, error) {
	return json.Marshal(map[string]any{
		"pruning-enabled":    false,
		"warp-api-enabled":   true,
		"eth-apis":           []string{"eth", "eth-filter", "net", "web3", "internal-eth", "internal-blockchain", "internal-transaction", "internal-debug", "debug-tracer"},
		"log-level":          "warn",
		"state-sync-enabled": false,
		// ICM's keyless deployment transaction has no chain id.
		"allow-unprotected-txs": true,
		"keystore-directory":    filepath.Join(dir, "subnet-evm-keystore"),
	})
}

// EVML1 is a running subnet-evm L1 and the custom network it is on.
type EVML1 struct {
	// Net is the custom network of the L1's node (its P, X and C chains;
	// every helper works there). Net.Key is funded on the L1 too.
	Net *Network
	// URL is the node's HTTP API base (= Net.URL).
	URL string
	// SubnetID is the L1's subnet, BlockchainID its chain (the
	// CreateChainTx's id) and EVMChainID the chain's EVM chain id.
	SubnetID     ids.ID
	BlockchainID ids.ID
	EVMChainID   uint64
	// Genesis is the chain's genesis, as its CreateChainTx carries it.
	Genesis []byte
	// L1 records the conversion; its only validator is the node, whose BLS
	// key it holds.
	L1 *L1
	// Node is the node's id.
	Node ids.NodeID
	// GenesisFile is the custom network's genesis file (avaindex needs it
	// with --genesis-file).
	GenesisFile string
}

// RPCURL is the L1 chain's eth JSON-RPC endpoint.
func (l *EVML1) RPCURL() string { return l.URL + "/ext/bc/" + l.BlockchainID.String() + "/rpc" }

// EthClient dials the L1 chain's eth JSON-RPC endpoint. Close it when done.
func (l *EVML1) EthClient(ctx context.Context) (*ethclient.Client, error) {
	return ethclient.DialContext(ctx, l.RPCURL())
}

// SendEVMTx is Network.SendEVMTx on the L1's chain, from the local key.
func (l *EVML1) SendEVMTx(ctx context.Context, to *ethcommon.Address, value *big.Int, data []byte, gas uint64) (*types.Receipt, error) {
	return l.Net.sendEVMTx(ctx, l.RPCURL(), l.EVMChainID, to, value, data, gas)
}

// l1Net is the process's L1 network, started by the first GetL1.
var l1Net lazyL1

type lazyL1 struct {
	mu      sync.Mutex
	started bool
	l1      *EVML1
	proc    *L1Process
	err     error
}

// L1Process is the running node of an L1 network that StartL1 started.
type L1Process struct{ p *process }

// Stop stops the node (SIGTERM, then SIGKILL after StopTimeout) and removes
// its directory unless StartL1 was given it.
func (p *L1Process) Stop() error { return p.p.stop(StopTimeout) }

// Exited is closed when the node exits, for whatever reason.
func (p *L1Process) Exited() <-chan struct{} { return p.p.done }

// GetL1 returns the process's subnet-evm L1, starting it on first use (see
// EVML1): the L1 binaries are built once per machine (or taken from
// L1NodeDirEnv), then one node is started, the subnet, chain and
// conversion issued, and the node restarted with the chain's config and the
// subnet tracked. Main stops it with the other networks.
//
// It skips the test in -short mode, and, when the L1 binaries are neither
// prebuilt nor buildable (no Go toolchain), unless CI is set; it fails the
// test if the L1 cannot be started.
func GetL1(t testing.TB) *EVML1 {
	t.Helper()
	if testing.Short() {
		t.Skip(SkipMessage)
	}
	l, err := l1Net.start()
	var noGo *exec.Error
	if errors.As(err, &noGo) && os.Getenv("CI") == "" {
		t.Skipf("testnet: the L1 binaries cannot be built (%v); set %s or run `make l1node`", err, L1NodeDirEnv)
	}
	if err != nil {
		t.Fatalf("testnet: the subnet-evm L1 is not available: %v", err)
	}
	return l
}

func (l *lazyL1) start() (*EVML1, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return l.l1, l.err
	}
	l.started = true
	l.l1, l.proc, l.err = launchL1()
	return l.l1, l.err
}

func (l *lazyL1) stop() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.proc
	l.proc, l.l1, l.started = nil, nil, true
	if l.err == nil {
		l.err = errors.New("the L1 network was stopped")
	}
	if p == nil {
		return nil
	}
	return p.Stop()
}

// launchL1 builds the binaries and starts the L1 network; see GetL1.
func launchL1() (*EVML1, *L1Process, error) {
	buildCtx, cancel := context.WithTimeout(context.Background(), L1BuildTimeout)
	nodeBin, pluginDir, err := L1Binaries(buildCtx)
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("L1 binaries: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), L1StartTimeout)
	defer cancel()
	return StartL1(ctx, nodeBin, pluginDir, "")
}

// StartL1 starts a custom network on nodeBin with the subnet-evm plugin of
// pluginDir (L1Binaries) and makes the L1 on it (see EVML1). Its data goes
// in dir, which must not hold a node yet; when dir is empty, in a new
// temporary directory that the returned process removes when it stops.
func StartL1(ctx context.Context, nodeBin, pluginDir, dir string) (*EVML1, *L1Process, error) {
	ownDir := dir == ""
	if !ownDir {
		if _, err := os.Stat(filepath.Join(dir, "node")); err == nil {
			return nil, nil, fmt.Errorf("testnet: %s already holds a node; the L1 network starts afresh", dir)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
	} else {
		d, err := os.MkdirTemp("", "avaindex-l1-")
		if err != nil {
			return nil, nil, err
		}
		dir = d
	}
	// With L1KeepEnv set, a failed start leaves dir for its logs.
	keep := os.Getenv(L1KeepEnv) != "" || !ownDir
	cleanup := func(err error, p *process) (*EVML1, *L1Process, error) {
		if keep {
			err = fmt.Errorf("%w (the node's data and logs are kept in %s)", err, dir)
		}
		if p != nil {
			p.keep = keep
			if stopErr := p.stop(StopTimeout); stopErr != nil {
				err = fmt.Errorf("%w (and stopping the node: %v)", err, stopErr)
			}
		} else if !keep {
			os.RemoveAll(dir)
		}
		return nil, nil, err
	}
	port, err := freePort()
	if err != nil {
		return cleanup(err, nil)
	}
	nodeDir := filepath.Join(dir, "node")
	args, _, err := localnet.Args(localnet.Options{Dir: nodeDir, HTTPPort: port, Custom: true, NetworkID: CustomNetworkID})
	if err != nil {
		return cleanup(err, nil)
	}
	args = append(args, "--plugin-dir="+pluginDir)

	p, uri, err := startNode(ctx, nodeBin, dir, nodeDir, args, true)
	if err != nil {
		return cleanup(err, nil)
	}
	n, err := describe(ctx, uri, CustomNetworkID)
	if err != nil {
		return cleanup(err, p)
	}
	n.GenesisFile = filepath.Join(nodeDir, "genesis.json")
	l := &EVML1{Net: n, URL: uri, EVMChainID: L1EVMChainID, Genesis: L1Genesis(), Node: n.NodeID, GenesisFile: n.GenesisFile}
	if l.SubnetID, err = n.CreateSubnet(ctx); err != nil {
		return cleanup(err, p)
	}
	if l.BlockchainID, err = n.CreateEVMChain(ctx, l.SubnetID, l.Genesis, SubnetEVMID, L1ChainName); err != nil {
		return cleanup(err, p)
	}
	vdr, err := n.NodeAsL1Validator(ctx, L1NodeWeight, L1NodeBalance)
	if err != nil {
		return cleanup(err, p)
	}
	manager := ethcommon.HexToAddress(L1ManagerAddress)
	if l.L1, err = n.ConvertToL1(ctx, l.SubnetID, l.BlockchainID, manager.Bytes(), []L1ValidatorSpec{vdr}); err != nil {
		return cleanup(err, p)
	}

	// Chain configs are read at start, and the blockchain id is known only
	// now: restart once, tracking the subnet.
	cfg, err := l1ChainConfig(nodeDir)
	if err != nil {
		return cleanup(err, p)
	}
	chainDir := filepath.Join(localnet.ChainConfigDir(nodeDir), l.BlockchainID.String())
	if err := os.MkdirAll(chainDir, 0o755); err != nil {
		return cleanup(err, p)
	}
	if err := os.WriteFile(filepath.Join(chainDir, "config.json"), cfg, 0o644); err != nil {
		return cleanup(err, p)
	}
	if err := p.stop(StopTimeout); err != nil {
		return cleanup(fmt.Errorf("stopping the node for its restart: %w", err), nil)
	}
	if err := os.Remove(localnet.ProcessFile(nodeDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return cleanup(err, nil)
	}
	args = append(args, "--track-subnets="+l.SubnetID.String())
	p, uri, err = startNode(ctx, nodeBin, dir, nodeDir, args, !ownDir, l.BlockchainID.String())
	if err != nil {
		return cleanup(err, nil)
	}
	if uri != l.URL {
		return cleanup(fmt.Errorf("the node came back at %s, not %s", uri, l.URL), p)
	}
	if err := l.waitEVM(ctx); err != nil {
		return cleanup(err, p)
	}
	return l, &L1Process{p}, nil
}

// waitEVM waits until the L1's RPC answers its EVM chain id.
func (l *EVML1) waitEVM(ctx context.Context) error {
	for {
		got, err := func() (uint64, error) {
			ec, err := l.EthClient(ctx)
			if err != nil {
				return 0, err
			}
			defer ec.Close()
			id, err := ec.ChainID(ctx)
			if err != nil {
				return 0, err
			}
			return id.Uint64(), nil
		}()
		if err == nil {
			if got != l.EVMChainID {
				return fmt.Errorf("the L1's RPC answers EVM chain id %d, want %d", got, l.EVMChainID)
			}
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("the L1's RPC at %s does not answer: %v", l.RPCURL(), err)
		}
	}
}

// CreateEVMChain creates a blockchain called name on subnetID running vmID
// with genesis, and returns its id (the CreateChainTx's).
func (n *Network) CreateEVMChain(ctx context.Context, subnetID ids.ID, genesis []byte, vmID ids.ID, name string) (ids.ID, error) {
	var txID ids.ID
	err := n.WithWallet(ctx, primary.WalletConfig{SubnetIDs: []ids.ID{subnetID}}, func(w *primary.Wallet) error {
		tx, err := w.P().IssueCreateChainTx(subnetID, genesis, vmID, nil, name)
		if err != nil {
			return fmt.Errorf("CreateChainTx: %w", err)
		}
		txID = tx.ID()
		return nil
	})
	return txID, err
}

// ConvertToL1 converts subnetID to an L1 managed by managerAddress on
// chainID, with vdrs as its validators, owned by the local key (see
// CreateL1With).
func (n *Network) ConvertToL1(ctx context.Context, subnetID, chainID ids.ID, managerAddress []byte, vdrs []L1ValidatorSpec) (*L1, error) {
	if len(vdrs) == 0 {
		return nil, errors.New("testnet: an L1 needs a validator")
	}
	l1 := &L1{
		SubnetID:       subnetID,
		ManagerChainID: chainID,
		ManagerAddress: managerAddress,
		CreateSubnetTx: subnetID,
		CreateChainTx:  chainID,
	}
	vdrs = sortedByNodeID(vdrs)
	owner := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{n.Addr}}
	conv := make([]*txs.ConvertSubnetToL1Validator, len(vdrs))
	for i, v := range vdrs {
		conv[i] = &txs.ConvertSubnetToL1Validator{
			NodeID:                v.NodeID.Bytes(),
			Weight:                v.Weight,
			Balance:               v.Balance,
			Signer:                *v.PoP,
			RemainingBalanceOwner: owner,
			DeactivationOwner:     owner,
		}
	}
	txID, err := n.issueP(ctx, primary.WalletConfig{SubnetIDs: []ids.ID{subnetID}}, func(w pwallet.Wallet, opts ...common.Option) (*txs.Tx, error) {
		return w.IssueConvertSubnetToL1Tx(subnetID, chainID, managerAddress, conv, opts...)
	})
	if err != nil {
		return nil, fmt.Errorf("ConvertSubnetToL1Tx: %w", err)
	}
	l1.ConvertSubnetToL1Tx = txID
	for i, v := range vdrs {
		if v.Signer == nil {
			continue
		}
		l1.add(&L1Validator{
			TxID:         txID,
			ValidationID: subnetID.Append(uint32(i)),
			NodeID:       v.NodeID,
			Weight:       v.Weight,
			Balance:      v.Balance,
			Signer:       v.Signer,
		})
	}
	if l1.ConvertedHeight, err = n.PClient().GetHeight(ctx); err != nil {
		return nil, fmt.Errorf("platform.getHeight: %w", err)
	}
	return l1, nil
}

// startNode runs nodeBin with args (its data in nodeDir, its output in
// dir) and waits until it wrote its process context and P, X, C and the
// chains of waitChains are bootstrapped. With keep, stopping the process
// leaves dir for a restart.
func startNode(ctx context.Context, nodeBin, dir, nodeDir string, args []string, keep bool, waitChains ...string) (*process, string, error) {
	stdout, err := os.Create(filepath.Join(dir, "node.stdout"))
	if err != nil {
		return nil, "", err
	}
	defer stdout.Close()
	stderrPath := filepath.Join(dir, "node.stderr")
	stderr, err := os.Create(stderrPath)
	if err != nil {
		return nil, "", err
	}
	defer stderr.Close()
	cmd := exec.Command(nodeBin, args...)
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = childAttrs()
	p := &process{cmd: cmd, dir: dir, keep: keep, done: make(chan struct{})}
	if err := p.start(); err != nil {
		return nil, "", fmt.Errorf("starting %s: %w", nodeBin, err)
	}
	fail := func(err error) (*process, string, error) {
		p.keep = true // the caller decides about dir
		if stopErr := p.stop(10 * time.Second); stopErr != nil {
			err = fmt.Errorf("%w (%v)", err, stopErr)
		}
		return nil, "", fmt.Errorf("%w; node stderr:\n%s", err, tailFile(stderrPath, 4000))
	}
	uri := ""
	chains := append([]string{"P", "X", "C"}, waitChains...)
	for {
		if uri == "" {
			if b, err := os.ReadFile(localnet.ProcessFile(nodeDir)); err == nil {
				var pc node.ProcessContext
				if json.Unmarshal(b, &pc) == nil {
					uri = pc.URI
				}
			}
		}
		if uri != "" && allBootstrapped(ctx, uri, chains) {
			p.keep = keep
			return p, uri, nil
		}
		select {
		case <-p.done:
			return fail(fmt.Errorf("the node exited before it was ready (%v)", p.waitErr))
		case <-ctx.Done():
			return fail(fmt.Errorf("the node was not ready in time: %w", ctx.Err()))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func allBootstrapped(ctx context.Context, uri string, chains []string) bool {
	c := (&Network{URL: uri}).InfoClient()
	for _, chain := range chains {
		ok, err := c.IsBootstrapped(ctx, chain)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// start starts p's command on a goroutine locked to its OS thread for the
// command's whole life (the parent-death signal is tied to the thread
// that forked), and closes p.done when it exits.
func (p *process) start() error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := p.cmd.Start()
		started <- err
		if err != nil {
			return
		}
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	return <-started
}

// freePort returns a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Command loadtest is avaindex's load harness (issue #27): it starts a real
// local node (bin/localnet), grows its P-chain and its C-chain (an ERC-20's
// transfers), starts avaindex (bin/avaindex)
// on SQLite and on PostgreSQL with rate limits off, waits until both have
// caught up, and then drives each case with wrk at a fixed concurrency, in
// rounds that alternate the targets (node, SQLite, PostgreSQL). It prints a
// table of requests/s and p50/p99 latency with the ratios to the node and
// between the stores, and the machine and its load.
//
// It is a benchmark, not a test: run it with `make loadtest` (see
// docs/development.md). It needs wrk on PATH and a PostgreSQL server.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ava-labs/avalanchego/indexer"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/libevm/common"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// containerIndex is the node's index that getContainerRange reads: the
// P-chain's blocks, which the harness grows.
const containerIndex = "P/block"

type options struct {
	duration    time.Duration
	rounds      int
	conns       int
	rangeConns  int
	pBlocks     uint64
	evmTxs      int
	localnetBin string
	avaindexBin string
	postgres    string
	wrk         string
	keep        bool
}

func main() {
	var o options
	fs := flag.NewFlagSet("loadtest", flag.ExitOnError)
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "wrk's duration of each case on each target in each round")
	fs.IntVar(&o.rounds, "rounds", 2, "rounds; each round runs every case on every target in turn")
	fs.IntVar(&o.conns, "connections", 64, "wrk's connections")
	fs.IntVar(&o.rangeConns, "range-connections", 8, "wrk's connections for index.getContainerRange of 1,024")
	fs.Uint64Var(&o.pBlocks, "pblocks", 1100, "P-chain blocks the node has at least (grown with BaseTxs)")
	fs.IntVar(&o.evmTxs, "evmtxs", 500, "ERC-20 transfers the harness sends on the C-chain from the key's address")
	fs.StringVar(&o.localnetBin, "localnet", envOr("AVAINDEX_LOCALNET_BIN", "bin/localnet"), "the localnet binary (make localnet)")
	fs.StringVar(&o.avaindexBin, "avaindex", "bin/avaindex", "the avaindex binary (make build)")
	fs.StringVar(&o.postgres, "postgres", envOr("AVAINDEX_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"),
		"PostgreSQL URL; the harness makes a schema of its own there and drops it at the end")
	fs.StringVar(&o.wrk, "wrk", "wrk", "the wrk binary")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (node data, SQLite file, logs) and the PostgreSQL schema")
	_ = fs.Parse(os.Args[1:])
	if o.duration <= 0 || o.rounds < 1 || o.conns < 1 || o.rangeConns < 1 || o.pBlocks < 1026 || o.evmTxs < 100 {
		fmt.Fprintln(os.Stderr, "loadtest: -duration, -rounds and the connections must be positive, -pblocks at least 1026 and -evmtxs at least 100")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s loadtest: %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options) (err error) {
	if _, err := exec.LookPath(o.wrk); err != nil {
		return fmt.Errorf("wrk is needed (apt-get install -y wrk): %w", err)
	}
	dir, err := os.MkdirTemp("", "avaindex-loadtest-")
	if err != nil {
		return err
	}
	if o.keep {
		logf("work directory %s (kept)", dir)
	} else {
		defer os.RemoveAll(dir)
	}

	// The node.
	nodeURL, stopNode, err := startLocalnet(ctx, o.localnetBin, filepath.Join(dir, "node"))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopNode()) }()
	logf("node at %s", nodeURL)
	n, err := testnet.Attach(ctx, nodeURL)
	if err != nil {
		return err
	}
	start := time.Now()
	tip, added, err := n.GrowPChain(ctx, o.pBlocks)
	if err != nil {
		return err
	}
	logf("grew the P-chain by %d blocks to height %d in %s", added, tip, time.Since(start).Round(time.Second))
	start = time.Now()
	cTip, err := growCChain(ctx, n, o.evmTxs)
	if err != nil {
		return err
	}
	logf("sent %d ERC-20 transfers on the C-chain, now at height %d, in %s", o.evmTxs, cTip, time.Since(start).Round(time.Second))

	// avaindex on both stores, rate limits off.
	schema := fmt.Sprintf("loadtest_%d", time.Now().Unix())
	pgDSN, dropSchema, err := postgresSchema(ctx, o.postgres, schema, o.keep)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, dropSchema()) }()
	stores := []struct{ name, dsn string }{
		{"SQLite", "sqlite:" + filepath.Join(dir, "avaindex.db")},
		{"PostgreSQL", pgDSN},
	}
	bases := map[string]string{"node": nodeURL}
	for _, s := range stores {
		base, stopSvc, err := startAvaindex(ctx, o.avaindexBin, nodeURL, s.dsn, filepath.Join(dir, "avaindex-"+s.name+".log"))
		if err != nil {
			return fmt.Errorf("avaindex on %s: %w", s.name, err)
		}
		defer func() { err = errors.Join(err, stopSvc()) }()
		bases[s.name] = base
	}
	for _, s := range stores {
		start := time.Now()
		if err := waitCaughtUp(ctx, bases[s.name], tip, n.EVMChainID, cTip); err != nil {
			return fmt.Errorf("avaindex on %s: %w", s.name, err)
		}
		logf("avaindex on %s at %s caught up to P-chain height %d and C-chain height %d (%s)", s.name, bases[s.name], tip, cTip,
			time.Since(start).Round(time.Second))
	}

	cases, err := loadCases(dir, n, tip, o)
	if err != nil {
		return err
	}
	targets := []string{"node", "SQLite", "PostgreSQL"}
	var results []result
	for round := 1; round <= o.rounds; round++ {
		for _, c := range cases {
			for _, t := range targets {
				if c.nodeless && t == "node" {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				r, err := c.run(ctx, o, bases[t])
				if err != nil {
					return fmt.Errorf("round %d, %s on %s: %w", round, c.name, t, err)
				}
				r.round, r.caseName, r.target = round, c.name, t
				logf("round %d %-28s %-10s %9.1f req/s  p50 %7.2f ms  p99 %7.2f ms", round, c.name, t, r.rps, r.p50, r.p99)
				results = append(results, r)
			}
		}
	}
	printReport(os.Stdout, o, tip, cTip, cases, results)
	return nil
}

// startLocalnet runs the localnet binary with its data in dir and returns
// the node's URL once it prints it, and how to stop it (SIGTERM, which
// stops the node cleanly).
func startLocalnet(ctx context.Context, bin, dir string) (string, func() error, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "--dir", dir, "--log-level", "warn")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting %s (make localnet): %w", bin, err)
	}
	stop := func() error { return stopProcess(cmd, 60*time.Second) }
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "NODE_URL="); ok {
				urlc <- u
			}
		}
		close(urlc)
	}()
	select {
	case u, ok := <-urlc:
		if !ok {
			return "", nil, errors.Join(errors.New("localnet exited before printing NODE_URL"), stop())
		}
		return u, stop, nil
	case <-time.After(5 * time.Minute):
		return "", nil, errors.Join(errors.New("localnet did not start within 5 minutes"), stop())
	case <-ctx.Done():
		return "", nil, errors.Join(ctx.Err(), stop())
	}
}

// stopProcess sends cmd's process SIGTERM, then SIGKILL after grace.
func stopProcess(cmd *exec.Cmd, grace time.Duration) error {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return nil
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not stop within %s of SIGTERM; killed", filepath.Base(cmd.Path), grace)
	}
}

// postgresSchema makes schema in the database at dsn and returns a DSN
// whose search_path is it, and how to drop it.
func postgresSchema(ctx context.Context, dsn, schema string, keep bool) (string, func() error, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", nil, err
	}
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("PostgreSQL at %s: creating schema %s: %w", redact(dsn), schema, err)
	}
	drop := func() error {
		defer db.Close()
		if keep {
			logf("PostgreSQL schema %s kept", schema)
			return nil
		}
		_, err := db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		return err
	}
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " search_path=" + schema, drop, nil
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return "(keyword/value DSN)"
}

// startAvaindex runs `avaindex serve` on a free loopback port with the
// rate limits off, logging to logPath, and returns its base URL once it
// answers HTTP. Its other settings are the defaults, the poll interval
// too: at each poll a caught-up follower asks the node for its tip and
// reads its cursor (on PostgreSQL a round trip), under every case.
func startAvaindex(ctx context.Context, bin, nodeURL, dsn, logPath string) (string, func() error, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "serve", "--node-url", nodeURL, "--db", dsn, "--listen", addr,
		"--rate-limit-tier", "anonymous:unlimited", "--rate-limit-tier", "node:unlimited")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return "", nil, fmt.Errorf("starting %s (make build): %w", bin, err)
	}
	stop := func() error { defer logFile.Close(); return stopProcess(cmd, 30*time.Second) }
	base := "http://" + addr
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return base, stop, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return "", nil, errors.Join(fmt.Errorf("not listening on %s within 2 minutes (log %s)", addr, logPath), stop())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitCaughtUp waits until avaindex at base serves the P-chain up to
// height and the P/block index up to container 1023.
func waitCaughtUp(ctx context.Context, base string, height, evmChainID, cHeight uint64) error {
	pc := platformvm.NewClient(base)
	ic := indexer.NewClient(base + "/ext/index/" + containerIndex)
	deadline := time.Now().Add(15 * time.Minute)
	for {
		h, err := pc.GetHeight(ctx)
		c := uint64(0)
		if err == nil && h >= height {
			if c, err = evmHeight(ctx, base, evmChainID); err == nil && c >= cHeight {
				if _, last, err := ic.GetLastAccepted(ctx); err == nil && last >= 1023 {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not caught up to P-chain height %d and C-chain height %d within 15 minutes (at %d and %d, %v)",
				height, cHeight, h, c, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// evmHeight is the height of the EVM chain evmChainID that avaindex at
// base has indexed, as its /readyz reports it (with 503 while it catches
// up).
func evmHeight(ctx context.Context, base string, evmChainID uint64) (uint64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Indexer struct {
			Heights map[string]uint64 `json:"heights"`
		} `json:"indexer"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, fmt.Errorf("/readyz: %w", err)
	}
	return r.Indexer.Heights[fmt.Sprintf("evm:%d", evmChainID)], nil
}

// evmRecipients is how many addresses growCChain's transfers go to, in turn.
const evmRecipients = 10

// growCChain deploys a TestToken20 from the key's address, mints to it, and
// sends txs transfers of it to evmRecipients addresses in turn: the key's
// address then has txs+2 EVM txs and txs ERC-20 transfers, the pages the
// EVM address cases read. It returns the C-chain's height after the last.
func growCChain(ctx context.Context, n *testnet.Network, txs int) (uint64, error) {
	r, err := n.SendEVMTx(ctx, nil, nil, contracts.Token20.Deploy("Load Token", "LOAD", uint8(18)), 0)
	if err != nil {
		return 0, fmt.Errorf("deploying the ERC-20: %w", err)
	}
	token := r.ContractAddress
	supply := new(big.Int).Lsh(big.NewInt(1), 100)
	if _, err := n.SendEVMTx(ctx, &token, nil, contracts.MintERC20(n.EthAddr, supply), 0); err != nil {
		return 0, fmt.Errorf("minting the ERC-20: %w", err)
	}
	calls := make([]testnet.EVMCall, txs)
	for i := range calls {
		to := common.BigToAddress(big.NewInt(int64(0x10000 + i%evmRecipients)))
		// A transfer to an address that holds the token already costs
		// less gas than the first; 100,000 covers both.
		calls[i] = testnet.EVMCall{To: &token, Data: contracts.TransferERC20(to, big.NewInt(int64(i+1))), Gas: 100_000}
	}
	receipts, err := n.SendEVMTxs(ctx, calls)
	if err != nil {
		return 0, fmt.Errorf("the ERC-20's transfers: %w", err)
	}
	return receipts[len(receipts)-1].BlockNumber.Uint64(), nil
}

// loadCase is one kind of request, driven by wrk.
type loadCase struct {
	name     string
	path     string // request path on the target
	script   string // wrk Lua script file, or ""
	conns    int
	nodeless bool // a Data API case: the node has no such route
	// list, for a Data API case, is the answer's list (its JSON key), which
	// the probe wants full: items, the page size.
	list  string
	items int
}

type result struct {
	round            int
	caseName, target string
	rps, p50, p99    float64 // req/s, ms
	non2xx, errors   int
}

// loadCases writes the Lua scripts of the POST cases into dir. The Data
// API's cases are its heaviest lists of what the harness grew: the P-chain
// key's UTXOs (about 2,200 with the spent ones) and its txs (the address
// history of 1,100), and its EVM address's txs and ERC-20 transfers.
func loadCases(dir string, n *testnet.Network, tip uint64, o options) ([]loadCase, error) {
	scripts := map[string]string{
		"getblockbyheight.lua": fmt.Sprintf(`-- platform.getBlockByHeight at a random height of 0..%d
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  local body = '{"jsonrpc":"2.0","id":1,"method":"platform.getBlockByHeight","params":{"height":' .. math.random(0, %d) .. ',"encoding":"hex"}}'
  return wrk.format(nil, nil, nil, body)
end
`, tip, tip),
		"getcontainerrange.lua": `-- index.getContainerRange of 1,024 containers from 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"index.getContainerRange","params":{"startIndex":0,"numToFetch":1024,"encoding":"hex"}}'
`,
	}
	for name, text := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	return []loadCase{
		{name: "platform.getBlockByHeight", path: "/ext/bc/P", script: filepath.Join(dir, "getblockbyheight.lua"), conns: o.conns},
		{name: "index.getContainerRange 1024", path: "/ext/index/" + containerIndex, script: filepath.Join(dir, "getcontainerrange.lua"), conns: o.rangeConns},
		{name: "P-chain blocks, page of 10", path: "/v1/networks/local/blockchains/p-chain/blocks?pageSize=10", conns: o.conns, nodeless: true,
			list: "blocks", items: 10},
		{name: "UTXOs of an address, 100", path: "/v1/networks/local/blockchains/p-chain/utxos?pageSize=100&includeSpent=true&addresses=" + n.PAddress(),
			conns: o.conns, nodeless: true, list: "utxos", items: 100},
		{name: "P-chain txs of an address, 100", path: "/v1/networks/local/blockchains/p-chain/transactions?pageSize=100&addresses=" + n.PAddress(),
			conns: o.conns, nodeless: true, list: "transactions", items: 100},
		{name: "EVM txs of an address, 100", path: fmt.Sprintf("/v1/chains/%d/addresses/%s/transactions?pageSize=100", n.EVMChainID, n.EthAddr),
			conns: o.conns, nodeless: true, list: "transactions", items: 100},
		{name: "ERC-20 transfers of an address, 100", path: fmt.Sprintf("/v1/chains/%d/addresses/%s/transactions:listErc20?pageSize=100", n.EVMChainID, n.EthAddr),
			conns: o.conns, nodeless: true, list: "transactions", items: 100},
	}, nil
}

// run checks that one request of c answers 200 and then runs wrk.
func (c loadCase) run(ctx context.Context, o options, base string) (result, error) {
	if err := c.probe(base); err != nil {
		return result{}, err
	}
	threads := min(2, c.conns)
	args := []string{"-t", strconv.Itoa(threads), "-c", strconv.Itoa(c.conns), "-d", fmt.Sprintf("%ds", max(1, int(o.duration.Seconds()))),
		"--timeout", "10s", "--latency"}
	if c.script != "" {
		args = append(args, "-s", c.script)
	}
	args = append(args, base+c.path)
	out, err := exec.CommandContext(ctx, o.wrk, args...).CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("wrk: %w: %s", err, out)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		return result{}, fmt.Errorf("%w in wrk's output:\n%s", err, out)
	}
	if r.non2xx > 0 || r.errors > 0 {
		return r, fmt.Errorf("%d non-2xx answers and %d socket errors:\n%s", r.non2xx, r.errors, out)
	}
	return r, nil
}

// probe sends one request like wrk's and wants HTTP 200 with no JSON-RPC
// error and, for a Data API case, a full page.
func (c loadCase) probe(base string) error {
	var resp *http.Response
	var err error
	switch {
	case strings.HasSuffix(c.script, "getblockbyheight.lua"):
		resp, err = http.Post(base+c.path, "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"platform.getBlockByHeight","params":{"height":1,"encoding":"hex"}}`))
	case c.script != "":
		resp, err = http.Post(base+c.path, "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"index.getContainerRange","params":{"startIndex":0,"numToFetch":1024,"encoding":"hex"}}`))
	default:
		resp, err = http.Get(base + c.path)
	}
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || (c.script != "" && strings.Contains(string(body), `"error"`)) {
		return fmt.Errorf("probe: HTTP %d: %.300s", resp.StatusCode, body)
	}
	if c.list != "" {
		var page map[string]json.RawMessage
		var items []json.RawMessage
		if err := json.Unmarshal(body, &page); err != nil || json.Unmarshal(page[c.list], &items) != nil || len(items) != c.items {
			return fmt.Errorf("probe: want %d %s, got %d: %.300s", c.items, c.list, len(items), body)
		}
	}
	return nil
}

var (
	reRPS     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	reLat     = regexp.MustCompile(`(?m)^\s+(50|99)(?:\.000)?%\s+([0-9.]+)(us|ms|s)\s*$`)
	reNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
	reSockErr = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// parseWrk reads requests/s, p50 and p99 (in ms) and the failures from
// wrk --latency's output.
func parseWrk(out string) (result, error) {
	var r result
	m := reRPS.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("no Requests/sec")
	}
	r.rps, _ = strconv.ParseFloat(m[1], 64)
	for _, m := range reLat.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[3] {
		case "us":
			v /= 1000
		case "s":
			v *= 1000
		}
		if m[1] == "50" {
			r.p50 = v
		} else {
			r.p99 = v
		}
	}
	if r.p50 == 0 || r.p99 == 0 {
		return r, errors.New("no latency distribution")
	}
	if m := reNon2xx.FindStringSubmatch(out); m != nil {
		r.non2xx, _ = strconv.Atoi(m[1])
	}
	if m := reSockErr.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			v, _ := strconv.Atoi(s)
			r.errors += v
		}
	}
	return r, nil
}

// printReport prints the machine, its load and one Markdown table row per
// case and round.
func printReport(w io.Writer, o options, tip, cTip uint64, cases []loadCase, results []result) {
	fmt.Fprintf(w, "\n## avaindex load test, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- machine: %s\n", machine())
	fmt.Fprintf(w, "- load after the run (uptime): %s\n", uptime())
	fmt.Fprintf(w, "- wrk: %s a case per target per round, %d rounds alternating targets; %d connections (getContainerRange %d); P-chain height %d, C-chain %d (%d ERC-20 transfers); rate limits off\n\n",
		o.duration, o.rounds, o.conns, o.rangeConns, tip, cTip, o.evmTxs)
	fmt.Fprintln(w, "| case | round | node req/s (p50/p99 ms) | SQLite req/s (p50/p99 ms) | ×node | PostgreSQL req/s (p50/p99 ms) | ×node | PG/SQLite |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	get := func(c string, round int, t string) (result, bool) {
		for _, r := range results {
			if r.caseName == c && r.round == round && r.target == t {
				return r, true
			}
		}
		return result{}, false
	}
	cell := func(r result, ok bool) string {
		if !ok {
			return ""
		}
		return fmt.Sprintf("%.0f (%.1f/%.1f)", r.rps, r.p50, r.p99)
	}
	ratio := func(a, b result, aok, bok bool) string {
		if !aok || !bok || b.rps == 0 {
			return ""
		}
		return fmt.Sprintf("%.2f×", a.rps/b.rps)
	}
	for _, c := range cases {
		for round := 1; round <= o.rounds; round++ {
			nr, nok := get(c.name, round, "node")
			sr, sok := get(c.name, round, "SQLite")
			pr, pok := get(c.name, round, "PostgreSQL")
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", c.name, round,
				cell(nr, nok), cell(sr, sok), ratio(sr, nr, sok, nok), cell(pr, pok), ratio(pr, nr, pok, nok), ratio(pr, sr, pok, sok))
		}
	}
	// The Data API cases have no node route; issue #27 measures the blocks
	// page against the node's getBlockByHeight.
	fmt.Fprintln(w)
	for round := 1; round <= o.rounds; round++ {
		nr, nok := get(cases[0].name, round, "node")
		sr, sok := get(cases[2].name, round, "SQLite")
		pr, pok := get(cases[2].name, round, "PostgreSQL")
		fmt.Fprintf(w, "Round %d: %s over the node's %s: SQLite %s, PostgreSQL %s\n", round, cases[2].name, cases[0].name,
			ratio(sr, nr, sok, nok), ratio(pr, nr, pok, nok))
	}
}

// machine describes the CPU (from /proc/cpuinfo) and memory.
func machine() string {
	model, cpus := "unknown CPU", 0
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "processor":
				cpus++
			case "model name":
				model = strings.TrimSpace(v)
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if m := regexp.MustCompile(`MemTotal:\s+(\d+) kB`).FindSubmatch(b); m != nil {
			kb, _ := strconv.ParseFloat(string(m[1]), 64)
			mem = fmt.Sprintf(", %.0f GiB", kb/(1<<20))
		}
	}
	return fmt.Sprintf("%d × %s%s", cpus, model, mem)
}

func uptime() string {
	out, err := exec.Command("uptime").Output()
	if err != nil {
		return "(uptime: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

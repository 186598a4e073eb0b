package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// asMain makes the test binary run main() instead of the tests.
const asMain = "AVAINDEX_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runDevnet runs devnet with args and TMPDIR tmp until it prints its URLs,
// checks what it printed, calls check (when non-nil) with avaindex's URL,
// then stops it with SIGTERM and requires exit status 0.
func runDevnet(t *testing.T, tmp string, check func(base string), args ...string) {
	t.Helper()
	runDevnetUntil(t, tmp, "Ctrl-C stops both", func(base, _ string) {
		if check != nil {
			check(base)
		}
	}, args...)
}

// runDevnetUntil is runDevnet waiting for a line that starts with until,
// whose check also gets all that devnet printed.
func runDevnetUntil(t *testing.T, tmp, until string, check func(base, out string), args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		printed strings.Builder
		scanned = make(chan struct{})
		ready   = make(chan struct{}, 1)
	)
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			printed.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.HasPrefix(sc.Text(), until) {
				ready <- struct{}{}
			}
		}
	}()
	select {
	case <-ready:
	case <-scanned:
	case <-time.After(4 * time.Minute):
	}
	mu.Lock()
	out := printed.String()
	mu.Unlock()
	if !strings.Contains(out, until) {
		_ = cmd.Process.Kill()
		<-scanned
		_ = cmd.Wait()
		t.Fatalf("devnet did not print its URLs:\n%s\nstderr:\n%s", out, stderr.String())
	}
	// The funded address of the local genesis (docs/compatibility.md), on
	// the local network or (--l1) the custom one.
	if !strings.Contains(out, "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u") && !strings.Contains(out, "P-custom18jma8ppw3nhx5r4ap8clazz0dps7rv5u9xde7p") ||
		!strings.Contains(out, "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC") {
		t.Errorf("devnet does not print the funded addresses:\n%s", out)
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); !strings.HasPrefix(first, "avaindex status page: http://") {
		t.Errorf("devnet's first line is not the status page's URL: %q", first)
	}
	m := regexp.MustCompile(`(?m)^\s*avaindex\s+(http://\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Errorf("devnet does not print avaindex's URL:\n%s", out)
	} else {
		check(m[1], out)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-scanned
	if err := cmd.Wait(); err != nil {
		t.Errorf("devnet stopped by SIGTERM: %v, want exit status 0\nstderr:\n%s", err, stderr.String())
	}
}

// TestDataDir: devnet removes the temporary directory it made, and keeps
// the one --data-dir names.
func TestDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local avalanchego node")
	}
	tmp := t.TempDir()
	runDevnet(t, tmp, func(base string) {
		// The printed address holds AVAX, as avaindex indexed it.
		deadline := time.Now().Add(time.Minute)
		for {
			balance, err := pBalance(base, "P-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u")
			if err == nil && balance > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("platform.getBalance of the funded address: %d, %v", balance, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}, "--demo=false")
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("devnet left %s in the temporary directory", filepath.Join(tmp, e.Name()))
	}

	kept := filepath.Join(t.TempDir(), "kept")
	runDevnet(t, t.TempDir(), nil, "--data-dir", kept, "--demo=false")
	for _, sub := range []string{"node", "avaindex"} {
		if _, err := os.Stat(filepath.Join(kept, sub)); err != nil {
			t.Errorf("--data-dir %s: %v after exit, want it kept", kept, err)
		}
	}
}

// pBalance returns the balance avaindex reports for a P-chain address.
func pBalance(base, addr string) (uint64, error) {
	req := `{"jsonrpc":"2.0","id":1,"method":"platform.getBalance","params":{"addresses":["` + addr + `"]}}`
	resp, err := http.Post(base+"/ext/bc/P", "application/json", strings.NewReader(req))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var reply struct {
		Result *struct {
			Balance string `json:"balance"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		return 0, fmt.Errorf("HTTP %d: %w", resp.StatusCode, err)
	}
	if reply.Result == nil {
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, reply.Error)
	}
	return strconv.ParseUint(reply.Result.Balance, 10, 64)
}

// printedCommand matches the curl commands devnet prints: a GET of a URL,
// or a POST of a JSON-RPC body.
var printedCommand = regexp.MustCompile(`(?m)^  curl -s (?:'(\S+)'|-X POST -H 'content-type: application/json' (\S+) -d '(.+)')$`)

// TestDemo: devnet issues its demo transactions and prints a command for
// each surface; every command answers 200 without an error, and the lists
// it shows hold the demo's data (the multisig and time-locked UTXOs, the
// rewards, the asset's transactions).
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local avalanchego node")
	}
	runDevnetUntil(t, t.TempDir(), demoDone, func(_, out string) {
		cmds := printedCommand.FindAllStringSubmatch(out, -1)
		if len(cmds) < 25 {
			t.Fatalf("devnet printed %d commands, want one per surface:\n%s", len(cmds), out)
		}
		bodies := map[string]string{}
		for _, c := range cmds {
			var (
				resp *http.Response
				err  error
				what = c[1]
			)
			if what != "" {
				resp, err = http.Get(c[1])
			} else {
				what = c[2] + " " + c[3]
				resp, err = http.Post(c[2], "application/json", strings.NewReader(c[3]))
			}
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("%s: HTTP %d, %v: %s", what, resp.StatusCode, err, b)
				continue
			}
			if c[3] != "" && strings.Contains(string(b), `"error":`) {
				t.Errorf("%s: %s", what, b)
			}
			bodies[what] = string(b)
		}
		// What the lists show is the demo's.
		for substr, wants := range map[string][]string{
			"/blockchains/p-chain/utxos?addresses=": {`"threshold":2`, `"platformLocktime":`, `"utxoType":"TRANSFER"`},
			"/rewards?nodeIds=":                     {`"rewardType":"VALIDATOR"`, `"rewardType":"DELEGATOR"`},
			"/assets/":                              {`"CreateAssetTx"`},
			"/blockchains/x-chain/utxos?addresses=": {`"threshold":2`, `"symbol":"AIT"`},
			// The C-chain's tokens, as the EVM endpoints show them.
			"/transfers":                  {`"from":`, `"txHash":"0x`},
			"/transactions:listErc721":    {`"erc721Token":`, `"tokenId":"1"`, `"symbol":"AIN"`},
			"/transactions:listErc1155":   {`"erc1155Token":`, `"value":"7"`, `"value":"5"`, `"tokenId":"2"`},
			"/deployments":                {`"ercType":"ERC-20"`, `"ercType":"ERC-721"`, `"ercType":"ERC-1155"`},
			"/transactions:getDeployment": {`"internalTxType":"CREATE2"`, `"callType":"CONTRACT_CALL"`},
			"/balances:getNative":         {`"symbol":"AVAX"`, `"balance":"`},
			// The NFTs' metadata, from data: URIs, fetched without a network.
			"/nfts/collections/": {`"indexStatus":"INDEXED"`, `"name":"Avaindex Test`},
		} {
			found := false
			for what, body := range bodies {
				if !strings.Contains(what, substr) {
					continue
				}
				found = true
				for _, want := range wants {
					if !strings.Contains(body, want) {
						t.Errorf("%s lacks %s: %s", what, want, body)
					}
				}
			}
			if !found {
				t.Errorf("no command shows %s", substr)
			}
		}
		chains := false
		for what, body := range bodies {
			if strings.HasSuffix(what, "/v1/chains") {
				chains = true
				if !strings.Contains(body, `"chainId":"43112"`) {
					t.Errorf("%s lacks the C-chain: %s", what, body)
				}
			}
		}
		if !chains {
			t.Error("no command lists the EVM chains")
		}
	})
}

// TestDemoL1: devnet --l1 runs the subnet-evm L1, issues its demo and
// prints commands that all answer 200 and show it: the L1 among the EVM
// chains, its token's transfers, Bob's minted balance.
func TestDemoL1(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an avalanchego node")
	}
	runDevnetUntil(t, t.TempDir(), demoDone, func(_, out string) {
		cmds := printedCommand.FindAllStringSubmatch(out, -1)
		if len(cmds) < 13 {
			t.Fatalf("devnet --l1 printed %d commands:\n%s", len(cmds), out)
		}
		bodies := map[string]string{}
		for _, c := range cmds {
			if c[1] == "" {
				continue
			}
			resp, err := http.Get(c[1])
			if err != nil {
				t.Errorf("%s: %v", c[1], err)
				continue
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("%s: HTTP %d, %v: %s", c[1], resp.StatusCode, err, b)
				continue
			}
			bodies[c[1]] = string(b)
		}
		// The ICM messages: each way, delivered, the first one's receipt
		// back on the C-chain.
		icm := 0
		for u, body := range bodies {
			if strings.Contains(u, "/v1/icm/messages/") {
				icm++
				if !strings.Contains(body, `"status":"delivered"`) || !strings.Contains(body, `"messageExecuted":true`) {
					t.Errorf("%s: %s, want a delivered and executed message", u, body)
				}
			}
		}
		if icm != 2 {
			t.Errorf("devnet --l1 printed %d ICM message commands, want 2", icm)
		}
		for substr, want := range map[string]string{
			"/v1/chains":          `"chainId":"78787"`,
			"/transfers":          `"value":"1234"`,
			"/balances:getNative": `"balance":"424242"`,
			"/v2/icm/summary":     `"allTime":4`,
		} {
			found := false
			for u, body := range bodies {
				found = found || strings.HasSuffix(u, substr) && strings.Contains(body, want)
			}
			if !found {
				t.Errorf("no command ending in %s shows %s", substr, want)
			}
		}
	}, "--l1")
}

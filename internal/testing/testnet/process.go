package testnet

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a running localnet binary.
type process struct {
	cmd     *exec.Cmd
	dir     string
	keep    bool          // stop leaves dir
	done    chan struct{} // closed once the process has exited
	waitErr error         // valid after done is closed
}

const urlPrefix = "NODE_URL="

// startProcess runs the localnet binary with a fresh temporary data directory
// and waits until it prints its URL. extraArgs are appended to its flags
// (e.g. "--network", "custom"). On failure nothing is left running and the
// directory is removed.
func startProcess(ctx context.Context, bin string, extraArgs ...string) (*process, string, error) {
	dir, err := os.MkdirTemp("", "avaindex-testnet-")
	if err != nil {
		return nil, "", err
	}
	return startProcessIn(ctx, bin, dir, 0, false, extraArgs...)
}

// startProcessIn runs the localnet binary on dir's node data and httpPort
// (0: a free one). Unless keep, dir is removed when the process stops or
// fails to start; with keep, a later start on dir resumes the same node.
func startProcessIn(ctx context.Context, bin, dir string, httpPort int, keep bool, extraArgs ...string) (*process, string, error) {
	fail := func(err error) (*process, string, error) {
		if !keep {
			os.RemoveAll(dir)
		}
		return nil, "", err
	}
	stderrPath := filepath.Join(dir, "localnet.stderr")
	stderr, err := os.Create(stderrPath)
	if err != nil {
		return fail(err)
	}
	defer stderr.Close()
	stdoutLog, err := os.Create(filepath.Join(dir, "localnet.stdout"))
	if err != nil {
		return fail(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		stdoutLog.Close()
		return fail(err)
	}

	cmd := exec.Command(bin, append([]string{"--dir", filepath.Join(dir, "node"), "--http-port", strconv.Itoa(httpPort)}, extraArgs...)...)
	cmd.Stdout = pw
	cmd.Stderr = stderr
	cmd.SysProcAttr = childAttrs()
	p := &process{cmd: cmd, dir: dir, keep: keep, done: make(chan struct{})}

	err = p.start()
	pw.Close()
	if err != nil {
		pr.Close()
		stdoutLog.Close()
		return fail(fmt.Errorf("starting %s: %w", bin, err))
	}

	// Copy stdout to a file (the C-chain logs there too) and pick out the URL.
	urlCh := make(chan string, 1)
	go func() {
		defer pr.Close()
		defer stdoutLog.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		found := false
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(stdoutLog, line)
			if !found && strings.HasPrefix(line, urlPrefix) {
				found = true
				urlCh <- strings.TrimSpace(strings.TrimPrefix(line, urlPrefix))
			}
		}
	}()

	select {
	case url := <-urlCh:
		return p, url, nil
	case <-p.done:
		return fail(fmt.Errorf("localnet exited before it was ready (%v); stderr:\n%s", p.waitErr, tailFile(stderrPath, 4000)))
	case <-ctx.Done():
		msg := tailFile(stderrPath, 4000)
		p.stop(10 * time.Second)
		return nil, "", fmt.Errorf("localnet was not ready in time: %w; stderr:\n%s", ctx.Err(), msg)
	}
}

// stop sends SIGTERM, waits up to grace for the node to exit, kills it if it
// did not, and removes its data directory unless it is kept.
func (p *process) stop(grace time.Duration) error {
	if !p.keep {
		defer os.RemoveAll(p.dir)
	}
	select {
	case <-p.done:
		return p.exitErr()
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
		return p.exitErr()
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("localnet did not stop within %s after SIGTERM and was killed", grace)
}

func (p *process) exitErr() error {
	if p.waitErr != nil {
		return fmt.Errorf("localnet exited: %w; stderr:\n%s", p.waitErr, tailFile(filepath.Join(p.dir, "localnet.stderr"), 2000))
	}
	return nil
}

package nftmeta

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
)

// lockedBuffer is a log destination the worker's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWorkerLogsOutcomes: the worker's log line says how many fetches
// indexed their metadata and how many failed, with the indexStatus of the
// failures counted, most frequent first, and how many will be retried.
func TestWorkerLogsOutcomes(t *testing.T) {
	uris := []string{
		`data:application/json,{"name":"ok"}`,
		`data:application/json,{"name":"ok too"}`,
		`data:application/json,{"name":`,
		`data:application/json,not json`,
		`ftp://example.com/1.json`,
		"",
	}
	st := &memStore{}
	for i, u := range uris {
		w := store.NFTWork{ChainID: 1, Token: common.Address{1}, TokenID: big.NewInt(int64(i)), Type: internal.ERC721}
		if u != "" {
			w.URI = &u
		}
		st.queue = append(st.queue, w)
	}
	var logs lockedBuffer
	w := NewWorker(st, Config{PollInterval: 10 * time.Millisecond}, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for st.saved() < len(uris) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	out := logs.String()
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `msg="nft metadata fetched"`) {
			line = l
		}
	}
	for _, want := range []string{"fetches=6", "indexed=2", "failed=4",
		`failures="INVALID_METADATA_JSON=2 INVALID_TOKEN_URI_SCHEME=1 MISSING_TOKEN=1"`, "retrying=0"} {
		if !strings.Contains(line, want) {
			t.Errorf("the log line lacks %s:\n%s", want, out)
		}
	}
}

package server

import (
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/avaindex/avaindex/internal/derrors"
)

// A node API call's cost in memory and time grows with its body: a
// platform.getBalance of 16 MiB names some 330,000 addresses and holds
// about 100 MB while it runs. Such calls are bounded three ways: each
// costs rate-limit units by its size (sizeCost), only heavySlots of them
// run at once across all clients (heavyLimiter), and the memory they
// leave is given back to the system when the last one ends.
const (
	// bytesPerUnit: a node API call costs one rate-limit unit more per
	// this many bytes of body (a 16 MiB call 4,097 units, a third of the
	// node tier's minute).
	bytesPerUnit = 4 << 10
	// heavyBytes: a node API call whose body is larger, or of unknown
	// length, is heavy.
	heavyBytes = 1 << 20
	// heavySlots is how many heavy calls run at once.
	heavySlots = 2
	// heavyWait is how long a heavy call waits for a slot before it is
	// refused with 503; less than the server's read timeout, which runs
	// while its body waits unread.
	heavyWait = 10 * time.Second
)

// sizeCost is what r's body adds to its rate-limit cost: its declared
// length in units of bytesPerUnit (a body of unknown length is heavy, and
// waits for a slot instead).
func sizeCost(r *http.Request) int {
	if r.ContentLength <= 0 {
		return 0
	}
	return int(min(r.ContentLength, 1<<40) / bytesPerUnit)
}

// heavyLimiter lets heavySlots heavy calls run at once; the others wait
// with their bodies unread, so that waiting costs no memory.
type heavyLimiter struct {
	slots chan struct{}
	wait  time.Duration
}

func newHeavyLimiter() *heavyLimiter {
	return &heavyLimiter{slots: make(chan struct{}, heavySlots), wait: heavyWait}
}

func isHeavy(r *http.Request) bool {
	return r.Method == http.MethodPost && (r.ContentLength < 0 || r.ContentLength > heavyBytes)
}

// wrap runs h for a heavy call once a slot is free, or answers 503 in
// writeError's body after heavyWait.
func (l *heavyLimiter) wrap(h http.Handler, writeError func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isHeavy(r) {
			h.ServeHTTP(w, r)
			return
		}
		t := time.NewTimer(l.wait)
		defer t.Stop()
		select {
		case l.slots <- struct{}{}:
		case <-r.Context().Done():
			return
		case <-t.C:
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(l.wait.Seconds()))))
			writeError(w, r, derrors.Client(derrors.Unavailable,
				"too many large calls are running (%d at once, over %d bytes each); retry later", heavySlots, heavyBytes))
			return
		}
		defer func() {
			<-l.slots
			if len(l.slots) == 0 {
				// The last heavy call ended: give its memory back rather
				// than keep the peak resident.
				debug.FreeOSMemory()
			}
		}()
		h.ServeHTTP(w, r)
	})
}

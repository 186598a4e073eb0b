package warpagg

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal/derrors"
)

// Reason is why a validator's signature is not in an aggregate.
type Reason string

const (
	// NoAddress: neither the node nor the configured peers know where the
	// validator can be reached.
	NoAddress Reason = "no known address"
	// NotConnected: the validator could not be connected to in time.
	NotConnected Reason = "not reachable"
	// NoAnswer: the request timed out, or the connection dropped before
	// an answer.
	NoAnswer Reason = "did not answer"
	// Refused: the validator's signing handler refused the message (an
	// application error: it does not consider the message valid to sign
	// with the given justification).
	Refused Reason = "refused to sign"
	// Failed: the validator answered with an error that is not a refusal.
	Failed Reason = "answered an error"
	// BadSignature: the validator answered a signature that does not
	// verify against its BLS key from the P-chain.
	BadSignature Reason = "answered an invalid signature"
)

// Failure is one validator that did not contribute a signature.
type Failure struct {
	NodeID ids.NodeID
	Weight uint64
	Reason Reason
	// Detail is the validator's own error message, if any.
	Detail string
}

// QuorumError reports an aggregation that did not reach its quorum: how
// much weight signed, how much was needed, and which validators did not
// sign and why. It is an InvalidArgument error when refusals alone make the
// quorum unreachable (the message or its justification is at fault), and an
// Unavailable error otherwise.
type QuorumError struct {
	SubnetID     ids.ID
	PChainHeight uint64
	Signed       uint64
	Needed       uint64
	Total        uint64
	Quorum       uint64 // percent
	Failures     []Failure
	// Elapsed is how long the collection ran.
	Elapsed time.Duration

	client error // the derrors client error carrying the message
}

func newQuorumError(e *QuorumError) *QuorumError {
	var refused uint64
	for _, f := range e.Failures {
		if f.Reason == Refused {
			refused += f.Weight
		}
	}
	kind := derrors.Unavailable
	if refused > 0 && e.Total-refused < e.Needed {
		kind = derrors.InvalidArgument
	}
	e.client = derrors.Client(kind, "%s", e.message())
	return e
}

// Error returns the message also shown to API clients.
func (e *QuorumError) Error() string { return e.message() }

// Unwrap gives the error's kind and its client message.
func (e *QuorumError) Unwrap() error { return e.client }

// maxListed bounds how many validators a message names per reason.
const maxListed = 8

func (e *QuorumError) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "signatures of %d of the %d weight of subnet %s at P-chain height %d were collected; %d (%d%%) are needed",
		e.Signed, e.Total, e.SubnetID, e.PChainHeight, e.Needed, e.Quorum)
	byReason := map[Reason][]Failure{}
	var reasons []Reason
	for _, f := range e.Failures {
		if _, ok := byReason[f.Reason]; !ok {
			reasons = append(reasons, f.Reason)
		}
		byReason[f.Reason] = append(byReason[f.Reason], f)
	}
	sort.Slice(reasons, func(i, j int) bool { return reasons[i] < reasons[j] })
	for _, r := range reasons {
		fs := byReason[r]
		sort.Slice(fs, func(i, j int) bool {
			if fs[i].Weight != fs[j].Weight {
				return fs[i].Weight > fs[j].Weight
			}
			return fs[i].NodeID.Compare(fs[j].NodeID) < 0
		})
		var weight uint64
		for _, f := range fs {
			weight += f.Weight
		}
		fmt.Fprintf(&b, "; %s (weight %d): ", r, weight)
		for i, f := range fs {
			if i == maxListed {
				fmt.Fprintf(&b, ", and %d more", len(fs)-maxListed)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (weight %d", f.NodeID, f.Weight)
			if f.Detail != "" {
				fmt.Fprintf(&b, ": %s", clip(f.Detail, 160))
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// invalid returns an InvalidArgument error with a client message.
func invalid(format string, args ...any) error { return derrors.Invalid(format, args...) }

package api

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/warpagg"
)

// The "Signature Aggregator" operations: aggregateSignatures (POST) and
// getAggregatedSignatures (GET by P-chain tx). Both answer 201 with
// {"signedMessage": hex}, as the real service does.

// SignatureAggregator aggregates warp signatures; *warpagg.Aggregator is
// one.
type SignatureAggregator interface {
	NetworkID() uint32
	Aggregate(ctx context.Context, req warpagg.Request) (*warpagg.Result, error)
}

// Response headers that say what was signed, for operators; clients may
// ignore them.
const (
	HeaderSignedWeight  = "X-Avaindex-Signed-Weight"
	HeaderTotalWeight   = "X-Avaindex-Total-Weight"
	HeaderSigningSubnet = "X-Avaindex-Signing-Subnet"
	HeaderPChainHeight  = "X-Avaindex-P-Chain-Height"
)

// aggregateRequest is the POST body (SignatureAggregatorRequest). Numbers
// are decoded as float64 so that a non-integer is answered with its own
// message.
type aggregateRequest struct {
	Message                *string  `json:"message"`
	Justification          *string  `json:"justification"`
	SigningSubnetID        *string  `json:"signingSubnetId"`
	QuorumPercentage       *float64 `json:"quorumPercentage"`
	QuorumPercentageBuffer *float64 `json:"quorumPercentageBuffer"`
	PChainHeight           *float64 `json:"pChainHeight"`
}

func (a *API) aggregator() (SignatureAggregator, error) {
	if a.signer == nil {
		return nil, derrors.Client(derrors.Unavailable, "signature aggregation is not available on this server")
	}
	return a.signer, nil
}

// aggregateSignatures serves POST .../aggregateSignatures.
func (a *API) aggregateSignatures(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	var body aggregateRequest
	if err := DecodeJSONBody(r, &body); err != nil {
		return err
	}
	message, err := hexField("message", body.Message)
	if err != nil {
		return err
	}
	justification, err := hexField("justification", body.Justification)
	if err != nil {
		return err
	}
	if len(message) == 0 && len(justification) == 0 {
		return derrors.Invalid("one of message or justification is required")
	}
	req := warpagg.Request{Justification: justification}
	if err := quorumFields(&req, body.QuorumPercentage, body.QuorumPercentageBuffer, body.PChainHeight); err != nil {
		return err
	}
	if body.SigningSubnetID != nil {
		id, err := parseSubnetID(*body.SigningSubnetID)
		if err != nil {
			return err
		}
		req.SigningSubnetID = &id
	}
	agg, err := a.aggregator()
	if err != nil {
		return err
	}
	if len(message) > 0 {
		req.Message, err = warpagg.ParseMessage(message)
	} else {
		req.Message, err = warpagg.MessageOfJustification(agg.NetworkID(), justification)
	}
	if err != nil {
		return err
	}
	return a.writeAggregate(w, r, agg, req)
}

// getAggregatedSignatures serves GET .../aggregateSignatures/{txHash}: the
// L1 message of a P-chain transaction, signed by the validators of the L1
// it concerns (or of signingSubnetId).
func (a *API) getAggregatedSignatures(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.networks.Network(r); err != nil {
		return err
	}
	v := r.PathValue("txHash")
	txID, err := ids.FromString(v)
	if err != nil {
		return derrors.Invalid("txHash must be a cb58 transaction id, got %s", got(v))
	}
	var req warpagg.Request
	override, err := a.getQueryOptions(r, &req)
	if err != nil {
		return err
	}
	agg, err := a.aggregator()
	if err != nil {
		return err
	}
	tm, err := warpagg.MessageOfTx(r.Context(), agg.NetworkID(), storeTxSource{a.store}, txID)
	if err != nil {
		return err
	}
	req.Message, req.Justification = tm.Message, tm.Justification
	req.SigningSubnetID = &tm.SubnetID
	if override != nil {
		req.SigningSubnetID = override
	}
	return a.writeAggregate(w, r, agg, req)
}

// getQueryOptions reads the GET form's optional query parameters, named
// as the POST body's fields: signingSubnetId, quorumPercentage,
// quorumPercentageBuffer and pChainHeight.
func (a *API) getQueryOptions(r *http.Request, req *warpagg.Request) (*ids.ID, error) {
	number := func(name string) (*float64, error) {
		v, ok, err := param.QueryValue(r, name)
		if err != nil || !ok {
			return nil, err
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, derrors.Invalid("%s must be a number, got %s", name, got(v))
		}
		return &f, nil
	}
	q, err := number("quorumPercentage")
	if err != nil {
		return nil, err
	}
	buf, err := number("quorumPercentageBuffer")
	if err != nil {
		return nil, err
	}
	h, err := number("pChainHeight")
	if err != nil {
		return nil, err
	}
	if err := quorumFields(req, q, buf, h); err != nil {
		return nil, err
	}
	v, ok, err := param.QueryValue(r, "signingSubnetId")
	if err != nil || !ok {
		return nil, err
	}
	id, err := parseSubnetID(v)
	if err != nil {
		return nil, err
	}
	return &id, nil
}

// writeAggregate aggregates req and writes the 201.
func (a *API) writeAggregate(w http.ResponseWriter, r *http.Request, agg SignatureAggregator, req warpagg.Request) error {
	res, err := agg.Aggregate(r.Context(), req)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set(HeaderSignedWeight, strconv.FormatUint(res.SignedWeight, 10))
	h.Set(HeaderTotalWeight, strconv.FormatUint(res.TotalWeight, 10))
	h.Set(HeaderSigningSubnet, res.SigningSubnetID.String())
	h.Set(HeaderPChainHeight, strconv.FormatUint(res.PChainHeight, 10))
	WriteJSON(w, http.StatusCreated, SignatureAggregationResponse{SignedMessage: hex.EncodeToString(res.Message.Bytes())})
	return nil
}

// hexField decodes an optional hex field (optional 0x prefix); absent and
// empty are both nil.
func hexField(name string, v *string) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	s := *v
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, derrors.Invalid("%s must be hex-encoded bytes (optionally 0x-prefixed), got %s", name, got(*v))
	}
	return b, nil
}

// parseSubnetID parses a subnet id in cb58 or in hex (32 bytes, optional
// 0x prefix).
func parseSubnetID(v string) (ids.ID, error) {
	if id, err := ids.FromString(v); err == nil {
		return id, nil
	}
	s := strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
	if b, err := hex.DecodeString(s); err == nil && len(b) == ids.IDLen {
		return ids.ID(b), nil
	}
	return ids.Empty, derrors.Invalid("signingSubnetId must be a subnet id in cb58 or as 32 hex-encoded bytes, got %s", got(v))
}

// quorumFields validates and sets the quorum, its buffer and the P-chain
// height (each optional).
func quorumFields(req *warpagg.Request, q, buf, height *float64) error {
	percent := func(name string, v *float64) (uint64, error) {
		if v == nil {
			return 0, nil
		}
		if *v != math.Trunc(*v) || *v < 0 || *v > 100 {
			return 0, derrors.Invalid("%s must be an integer between 0 and 100, got %s", name, formatNumber(*v))
		}
		return uint64(*v), nil
	}
	var err error
	if req.QuorumPercentage, err = percent("quorumPercentage", q); err != nil {
		return err
	}
	if req.QuorumPercentageBuffer, err = percent("quorumPercentageBuffer", buf); err != nil {
		return err
	}
	effective := req.QuorumPercentage
	if effective == 0 {
		effective = warpagg.DefaultQuorum
	}
	if sum := effective + req.QuorumPercentageBuffer; sum > 100 {
		return derrors.Invalid("quorumPercentage + quorumPercentageBuffer must be at most 100, got %d + %d", effective, req.QuorumPercentageBuffer)
	}
	if height != nil {
		const maxExact = 1 << 53 // integers beyond are not exact in JSON numbers
		if *height != math.Trunc(*height) || *height < 0 || *height > maxExact {
			return derrors.Invalid("pChainHeight must be a non-negative integer, got %s", formatNumber(*height))
		}
		req.PChainHeight = uint64(*height)
	}
	return nil
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// storeTxSource finds P-chain txs and L1 validators in the store.
type storeTxSource struct{ store DataSource }

func (s storeTxSource) PTx(ctx context.Context, id ids.ID) (*txs.Tx, error) {
	stored, err := s.store.PTx(ctx, id)
	if err != nil {
		return nil, err
	}
	tx, err := txs.Parse(txs.Codec, stored.Bytes)
	if err != nil {
		return nil, fmt.Errorf("stored P-chain tx %s: %w", id, err)
	}
	return tx, nil
}

func (s storeTxSource) L1ValidatorOrigin(ctx context.Context, validationID ids.ID) (ids.ID, ids.ID, error) {
	v, err := s.store.L1Validator(ctx, validationID)
	if err != nil {
		return ids.Empty, ids.Empty, err
	}
	return v.SubnetID, v.AddedTxID, nil
}
